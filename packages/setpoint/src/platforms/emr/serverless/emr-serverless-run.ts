import type { RunDescription } from '../../../platform-api/platform.js';
import type { RunCost } from '../../../service/runs/run-records.js';
import { jobRunCost } from './emr-serverless-cost.js';
import { emrServerlessPrice } from './emr-serverless-prices.js';
import { type EmrServerlessRunReport, jobRunSpan } from './emr-serverless-report.js';

/** How a run on EMR Serverless is configured: its application (EMR Serverless sizes the workers). */
export const emrServerlessConfigurationOf = (report: EmrServerlessRunReport) => ({
  form: 'emr-serverless',
  application_id: report.application.id,
  release_label: report.application.releaseLabel,
  architecture: report.application.architecture,
});

/** Whether a run's stored configuration is an EMR Serverless job run's (`emrServerlessConfigurationOf`). */
export function isEmrServerlessConfiguration(config: Record<string, unknown> | null): boolean {
  return config?.form === 'emr-serverless';
}

/**
 * An EMR Serverless job run as the core stores it: no cluster, no nodes; its runtime and outcome from the job
 * run's timeline and state.
 */
export function describeEmrServerlessRun(report: EmrServerlessRunReport): RunDescription {
  const span = jobRunSpan(report.jobRun);
  return {
    facts: {
      source: 'cluster_report',
      cloud: 'aws',
      region: report.region,
      nodeTypeId: null,
      driverNodeTypeId: null,
      workers: null,
      autoscale: null,
      photon: false,
      availability: null,
      sparkVersion: null,
    },
    configuration: emrServerlessConfigurationOf(report),
    timeline: { nodes: [] },
    startedAt: span.startMs,
    endedAt: span.endMs,
    status: report.jobRun.state === 'SUCCESS' ? 'SUCCESS' : 'FAILED',
    recommendationId: null,
  };
}

/**
 * What an EMR Serverless job run cost: its billed utilization at the region's published price (three typed
 * components billed by AWS); a run with no bill yet, or in a region Setpoint has no price for, is stored as a
 * pending cost with the reason (never $0).
 */
export function emrServerlessRunCost(report: EmrServerlessRunReport): RunCost {
  const price = emrServerlessPrice(report.region, report.application.architecture);
  const { cost, pending } = jobRunCost(
    {
      applicationId: report.application.id,
      jobRunId: report.jobRun.id,
      state: report.jobRun.state,
      billedResourceUtilization: report.billed ?? undefined,
    },
    price,
    report.region,
  );
  if (cost)
    return {
      currency: 'USD',
      totalUsd: cost.totalUsd,
      lowUsd: cost.totalUsd,
      highUsd: cost.totalUsd,
      components: cost.components,
    };
  return {
    currency: 'USD',
    totalUsd: 0,
    lowUsd: 0,
    highUsd: 0,
    components: [],
    pending: { reason: pending },
  };
}
