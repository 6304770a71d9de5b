import { ValidationError } from '@setpoint/foundation/errors';
import type { WhatIfPoint } from '../eventlog/run-profile.js';
import type {
  NewClusterFragment,
  RecommendationInput,
  RecommendationOutput,
  Recommender,
  RecommenderRun,
} from './ports.js';

/** Spread the baseline puts around its point estimate: what-if replays are rough. */
const runtimeBand = { low: 0.85, high: 1.25 };

/**
 * Baseline policy until the optimizer is wired: from the based-on run's what-if table, pick the
 * executor count that minimises cost (node-hours scale with workers + driver) while meeting the SLA,
 * within the project's worker bounds. One worker per executor, as on Databricks job clusters.
 */
export class WhatIfBaselineRecommender implements Recommender {
  async recommend(input: RecommendationInput): Promise<RecommendationOutput> {
    const run = input.runs.find((candidate) => candidate.id === input.basedOnRunId);
    if (!run)
      throw new ValidationError('RUN_NOT_PROFILED', `run ${input.basedOnRunId} has no profile and cost yet`);
    const { settings } = input.project;
    const observedWorkers = Math.max(1, run.cluster.workers ?? run.profile.executors.maxConcurrent);
    const observedMinutes = observedRuntimeMinutes(run);
    const usdPerNodeMinute = run.cost.totalUsd / Math.max(observedMinutes, 1e-6) / (observedWorkers + 1);
    const candidates = run.profile.whatIf
      .filter(
        (point) =>
          point.executors >= Math.max(1, settings.minWorkers) && point.executors <= settings.maxWorkers,
      )
      .map((point) => estimate(point, usdPerNodeMinute));
    if (candidates.length === 0) {
      candidates.push({ workers: observedWorkers, minutes: observedMinutes, usd: run.cost.totalUsd });
    }
    const sla = settings.slaMinutes;
    const withinSla =
      sla === null
        ? candidates
        : candidates.filter((candidate) => candidate.minutes * runtimeBand.high <= sla);
    const pool = withinSla.length > 0 ? withinSla : candidates;
    const weight = { economy: 0, balanced: 0.5, performance: 2 }[settings.preference];
    const score = (c: { minutes: number; usd: number }) =>
      c.usd * (1 + (weight * c.minutes) / Math.max(observedMinutes, 1e-6));
    const best = pool.reduce((a, b) => (score(b) < score(a) ? b : a));
    const configuration: NewClusterFragment = { num_workers: best.workers };
    if (run.cluster.nodeTypeId) configuration.node_type_id = run.cluster.nodeTypeId;
    if (run.cluster.driverNodeTypeId) configuration.driver_node_type_id = run.cluster.driverNodeTypeId;
    if (run.cluster.photon !== null)
      configuration.runtime_engine = run.cluster.photon && settings.photonAllowed ? 'PHOTON' : 'STANDARD';
    const availability = {
      'on-demand-only': 'ON_DEMAND',
      'spot-with-fallback': 'SPOT_WITH_FALLBACK',
      'spot-allowed': 'SPOT',
    }[settings.spotPolicy];
    const attributes = {
      availability: `${availability}${run.cluster.cloud === 'azure' ? '_AZURE' : ''}`,
      first_on_demand: settings.forceOnDemandDriver ? 1 : 0,
    };
    if (run.cluster.cloud === 'azure') configuration.azure_attributes = attributes;
    else configuration.aws_attributes = attributes;
    const slaNote =
      sla === null
        ? 'no SLA is set'
        : withinSla.length > 0
          ? `within the ${sla}-minute SLA`
          : `no option meets the ${sla}-minute SLA, so the fastest-cost trade-off was taken`;
    return {
      phase: input.project.phase === 'PENDING_SETUP' ? 'LEARNING' : input.project.phase,
      configuration,
      prediction: {
        runtimeMinutes: band(best.minutes),
        costUsd: band(best.usd),
      },
      explanation:
        `Baseline what-if policy: run ${run.externalRunId} took ${observedMinutes.toFixed(1)} min on ${observedWorkers} workers ` +
        `for $${run.cost.totalUsd.toFixed(2)}; replaying its tasks on ${best.workers} workers predicts ${best.minutes.toFixed(1)} min ` +
        `for $${best.usd.toFixed(2)} (${input.project.settings.preference} preference; ${slaNote}).`,
    };
  }
}

function observedRuntimeMinutes(run: RecommenderRun): number {
  const ms = run.profile.application.durationMs ?? run.profile.analysis.wallTimeMs;
  return ms / 60_000;
}

function estimate(point: WhatIfPoint, usdPerNodeMinute: number) {
  const minutes = point.estimatedDurationMs / 60_000;
  return { workers: point.executors, minutes, usd: minutes * (point.executors + 1) * usdPerNodeMinute };
}

function band(mid: number) {
  return { low: mid * runtimeBand.low, mid, high: mid * runtimeBand.high };
}
