import { ValidationError } from '@setpoint/foundation/errors';
import type { RunProfile } from '../../../eventlog/run-profile.js';
import type { RunDescription, RunReportReader } from '../../../platform-api/platform.js';
import type { ClusterFacts } from '../../../service/runs/run-records.js';
import {
  type EmrServerlessRunReport,
  emrServerlessRunReportSchema,
} from '../serverless/emr-serverless-report.js';
import { describeEmrServerlessRun } from '../serverless/emr-serverless-run.js';
import { type EmrRunReport, emrRunReportSchema } from './emr-run-report.js';
import { checkEventLogOwnership } from './event-log-ownership.js';

/** The cluster tag naming the Setpoint recommendation a cluster was launched or resized from. */
export const emrRecommendationTagKey = 'setpoint:recommendation-id';
/** The cluster tag naming who launched it with a recommendation (the Airflow hook: `airflow:<dag>.<task>`). */
export const emrLauncherTagKey = 'setpoint:launched-by';

/** An uploaded EMR run report, validated at the edge: 400 with the first problem when it is not one. */
export function parseEmrRunReport(value: unknown): EmrRunReport {
  const parsed = emrRunReportSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(
      'EMR_RUN_REPORT_INVALID',
      `invalid EMR cluster report: ${issue ? `${issue.path.join('.')} ${issue.message}` : 'validation failed'}`,
    );
  }
  return parsed.data;
}

function factsOf(report: EmrRunReport, profile: RunProfile): ClusterFacts {
  const workers = report.instances.filter((instance) => instance.role !== 'MASTER');
  const primary = report.instances.find((instance) => instance.role === 'MASTER');
  const core = workers.find((instance) => instance.role === 'CORE') ?? workers[0];
  const markets = new Set(workers.map((instance) => instance.market));
  const limits = report.shape.managedScaling;
  const live = (at: number) =>
    workers.filter(
      (instance) => instance.createdAt <= at && (instance.endedAt === null || instance.endedAt > at),
    ).length;
  return {
    source: 'cluster_report',
    cloud: 'aws',
    region: report.region,
    nodeTypeId: core?.instanceType ?? null,
    driverNodeTypeId: primary?.instanceType ?? null,
    workers: limits ? null : live(report.step.startedAt ?? report.cluster.readyAt ?? 0),
    autoscale: limits ? { minWorkers: limits.minimum, maxWorkers: limits.maximum } : null,
    photon: false,
    availability: markets.size === 0 ? null : [...markets].sort().join('+'),
    sparkVersion: profile.application.sparkVersion,
  };
}

/**
 * A stored or uploaded report of an EMR run: a step on an EMR cluster, or a job run on EMR Serverless (its
 * `platform` says which); 400 with the first problem when it is neither.
 */
export function parseEmrReport(value: unknown): EmrRunReport | EmrServerlessRunReport {
  if (
    typeof value === 'object' &&
    value !== null &&
    'platform' in value &&
    value.platform === 'emr-serverless'
  ) {
    const parsed = emrServerlessRunReportSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    throw new ValidationError(
      'EMR_RUN_REPORT_INVALID',
      `invalid EMR Serverless job run report: ${issue ? `${issue.path.join('.')} ${issue.message}` : 'validation failed'}`,
    );
  }
  return parseEmrRunReport(value);
}

const failedStepStates = new Set(['FAILED', 'CANCELLED', 'INTERRUPTED']);

/** An EMR step run from its stored report (cluster, shape, instances) and its event log. */
export function describeEmrRun(stored: unknown, profile: RunProfile): RunDescription {
  if (stored === null || stored === undefined)
    throw new ValidationError(
      'EMR_REPORT_MISSING',
      'an EMR run needs its cluster report (cluster, step and instances)',
    );
  const report = parseEmrReport(stored);
  if (report.platform === 'emr-serverless') return describeEmrServerlessRun(report);
  checkEventLogOwnership(report, profile);
  const status =
    report.step.state === 'COMPLETED'
      ? 'SUCCESS'
      : failedStepStates.has(report.step.state)
        ? 'FAILED'
        : profile.application.endTime === null
          ? 'INCOMPLETE'
          : 'SUCCESS';
  return {
    facts: factsOf(report, profile),
    configuration: report as unknown as Record<string, unknown>,
    timeline: {
      nodes: report.instances.map((instance) => ({
        role: instance.role,
        instanceType: instance.instanceType,
        market: instance.market,
        startMs: instance.createdAt,
        endMs: instance.endedAt,
      })),
    },
    startedAt: profile.application.startTime ?? report.step.startedAt,
    endedAt: profile.application.endTime ?? report.step.endedAt,
    status,
    recommendationId: report.cluster.tags[emrRecommendationTagKey] ?? null,
  };
}

export const emrRunReports: RunReportReader = {
  parseClusterReport: parseEmrReport,
  describeRun: describeEmrRun,
};
