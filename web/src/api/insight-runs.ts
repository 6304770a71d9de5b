import type { RunResource as Run } from '@setpoint/api-contract';
import type { InsightRun } from '@setpoint/insights';
import { clusterIdentity, countOf } from '@setpoint/insights';

/** The identity of a run's cluster: equal keys mean the same node types, size, engine and market. */
export function clusterKey(run: Run): string | null {
  return clusterIdentity(run.cluster);
}

export function clusterLabel(run: Run): string {
  const cluster = run.cluster;
  if (!cluster) return '—';
  const size = cluster.autoscale
    ? `${cluster.autoscale.minWorkers}–${cluster.autoscale.maxWorkers} workers`
    : cluster.workers !== null && cluster.workers !== undefined
      ? countOf(cluster.workers, 'worker')
      : '';
  return [
    cluster.nodeTypeId,
    size,
    cluster.photon ? 'Photon' : '',
    cluster.availability ? marketWords(cluster.availability) : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/**
 * A market as the explanations say it ("spot with fallback", "on-demand"), not as the platform's API spells
 * it (`SPOT_WITH_FALLBACK_AZURE`, `ON_DEMAND`), so the Runs table and the recommendation name one thing once.
 */
export function marketWords(availability: string): string {
  return availability
    .replace(/_AZURE$/, '')
    .toLowerCase()
    .replace('on_demand', 'on-demand')
    .replaceAll('_', ' ');
}

export function toInsightRun(run: Run, coreUtilization: number | null = null): InsightRun {
  return {
    id: run.id,
    startedAt: run.started_at,
    endedAt: run.ended_at,
    status: run.status,
    costUsd: run.cost?.total_usd ?? null,
    costComponents: run.cost?.components ?? null,
    inputBytes: run.input_bytes,
    configKey: clusterKey(run),
    recommendationId: run.on_recommendation_id,
    coreUtilization,
    spotLosses: null,
  };
}
