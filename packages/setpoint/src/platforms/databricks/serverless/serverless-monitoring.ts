import { quantile } from '@setpoint/foundation/statistics';
import type { RecommendationInput, RecommendationOutput } from '../../../service/recommender/recommender.js';
import type { RecommenderRun } from '../../../service/recommender/recommender-run.js';
import { describePerformanceTarget, performanceTargetOf } from './serverless-tasks.js';

/** A run of serverless compute: its configuration is its performance mode and names no node type. */
export function isServerlessRun(run: Pick<RecommenderRun, 'clusterConfig'>): boolean {
  const config = run.clusterConfig;
  return config !== null && 'performance_target' in config && !('node_type_id' in config);
}

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

/**
 * A serverless job is monitored and advised, never resized: Databricks sizes serverless compute itself, so
 * there is no cluster to recommend. Its recommendation keeps the job as it is (its performance mode) and
 * predicts from its own runs in that mode: runtime (start-up included) and billed cost, 10th to 90th
 * percentile.
 */
export function serverlessMonitoring(input: RecommendationInput): RecommendationOutput {
  const basedOn = input.runs.find((run) => run.id === input.basedOnRunId) ?? input.runs.at(-1);
  const target = performanceTargetOf(basedOn?.clusterConfig?.performance_target);
  const sameMode = input.runs.filter(
    (run) => isServerlessRun(run) && performanceTargetOf(run.clusterConfig?.performance_target) === target,
  );
  const succeeded = sameMode.filter((run) => run.status === 'SUCCESS');
  const runtimes = succeeded.map((run) => run.profile.analysis.wallTimeMs / 60_000).filter((m) => m > 0);
  const costs = knownCosts(succeeded);
  const sla = input.project.settings.slaMinutes;
  const met = sla === null ? null : runtimes.filter((minutes) => minutes <= sla).length;
  const slaWords =
    sla === null
      ? 'no SLA is set'
      : `${met} of ${runtimes.length} successful run${runtimes.length === 1 ? '' : 's'} met the ${sla}-minute SLA`;
  return {
    phase: 'MONITORING',
    configuration: { performance_target: target },
    prediction: { runtimeMinutes: range(runtimes), costUsd: costRange(costs) },
    explanation:
      `Serverless job in ${describePerformanceTarget(target)} mode: Databricks sizes its compute, so Setpoint ` +
      `changes nothing and watches its runtime (start-up included) and its billed cost. ${slaWords}.`,
  };
}
