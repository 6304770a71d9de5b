import type { InsightRun } from '@setpoint/insights';
import { clusterIdentity } from '@setpoint/insights';
import type { Run } from '../runs/run-service.js';

/** A stored run as ROI and insights see it; core utilization comes from its profile when known. */
export function insightRunFromRun(run: Run, coreUtilization: number | null = null): InsightRun {
  return {
    id: run.id,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    status: run.status,
    costUsd: run.cost?.totalUsd ?? null,
    costComponents: run.cost?.components ?? null,
    inputBytes: run.inputBytes,
    configKey: clusterIdentity(run.clusterFacts),
    recommendationId: run.recommendationId,
    coreUtilization,
    spotLosses: null,
  };
}
