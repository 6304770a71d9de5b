import { ValidationError } from '@setpoint/foundation/errors';
import type { RunProfile } from '../../../eventlog/run-profile.js';
import type { RunDescription, RunReportReader } from '../../../platform-api/platform.js';
import type { ClusterFacts } from '../../../service/runs/run-records.js';
import { shapeOfCluster } from '../cluster-shape/cluster-shape.js';
import { jobFragmentOf } from '../cluster-shape/job-fragment.js';
import { recommendationTagKey } from '../jobs/onboarding.js';
import { clusterFacts, clusterTimeline } from './cluster-facts.js';
import { type ClusterReport, clusterReportSchema } from './cluster-report.js';

/** An uploaded cluster report, validated at the edge: 400 with the first problem when it is not one. */
export function parseClusterReport(value: unknown): ClusterReport {
  const parsed = clusterReportSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(
      'CLUSTER_REPORT_INVALID',
      `invalid cluster_report: ${issue ? `${issue.path.join('.')} ${issue.message}` : 'validation failed'}`,
    );
  }
  return parsed.data;
}

function runStatus(resultStates: string[], profile: RunProfile): string {
  if (resultStates.length > 0)
    return resultStates.every((state) => state === 'SUCCESS') ? 'SUCCESS' : 'FAILED';
  if (profile.application.endTime === null) return 'INCOMPLETE';
  return profile.totals.failedJobs > 0 ? 'FAILED' : 'SUCCESS';
}

/**
 * The `new_cluster` a run without a cluster report ran on, described from its event log's cluster tags
 * through the one shape model; null when the log does not say which cloud or node type.
 */
function configurationFromFacts(facts: ClusterFacts, profile: RunProfile): Record<string, unknown> | null {
  const cloud = facts.cloud?.toLowerCase();
  if ((cloud !== 'aws' && cloud !== 'azure') || !facts.nodeTypeId) return null;
  return jobFragmentOf(shapeOfCluster(null, cloud, facts, profile.executors.maxConcurrent));
}

/** A Databricks run from its stored cluster report (clusters/get, events, tasks) and its event log. */
export function describeRun(stored: unknown, profile: RunProfile): RunDescription {
  const report = stored === null || stored === undefined ? null : parseClusterReport(stored);
  const facts = clusterFacts(report, profile);
  const tasks = report?.tasks ?? [];
  const taskTimes = tasks
    .flatMap((task) => [task.start_time, task.end_time])
    .filter((t): t is number => typeof t === 'number' && t > 0);
  const resultStates = tasks.map((task) => task.state?.result_state).filter((s): s is string => Boolean(s));
  return {
    facts,
    // a serverless run has no cluster: what configures it is its performance mode
    configuration: report?.serverless
      ? { performance_target: report.serverless.performance_target }
      : report
        ? report.cluster
        : configurationFromFacts(facts, profile),
    timeline: clusterTimeline(report, profile),
    startedAt: profile.application.startTime ?? (taskTimes.length ? Math.min(...taskTimes) : null),
    endedAt: profile.application.endTime ?? (taskTimes.length ? Math.max(...taskTimes) : null),
    status: runStatus(resultStates, profile),
    recommendationId: report?.cluster.custom_tags?.[recommendationTagKey] ?? null,
  };
}

export const databricksRunReports: RunReportReader = { parseClusterReport, describeRun };
