import { quantile } from '@setpoint/foundation/statistics';
import type { RecommenderRun } from './recommender-run.js';

/**
 * The predictions of a job Setpoint monitors rather than sizes (compute the platform sizes itself): ranges of
 * its own runs' runtimes and known costs.
 */

/** What the runs cost, leaving out those whose cost waits for their bill (their $0 is no cost). */
export const knownCosts = (runs: readonly RecommenderRun[]): number[] =>
  runs.flatMap((run) => (run.cost.pending ? [] : [run.cost.totalUsd]));

const spread = (values: number[]) => ({
  low: quantile(values, 0.1),
  mid: quantile(values, 0.5),
  high: quantile(values, 0.9),
});
/** 10th to 90th percentile; no runs: 0 (a runtime not yet seen). */
export const range = (values: number[]) =>
  values.length === 0 ? { low: 0, mid: 0, high: 0 } : spread(values);
/** 10th to 90th percentile of the known costs; none known yet (every bill pending): null, never $0. */
export const costRange = (costs: number[]) => (costs.length === 0 ? null : spread(costs));
