import { costRange, knownCosts, range } from '../../../service/recommender/monitored-ranges.js';
import type { RecommendationInput, RecommendationOutput } from '../../../service/recommender/recommender.js';
import type { RecommenderRun } from '../../../service/recommender/recommender-run.js';
import { describePerformanceTarget, performanceTargetOf } from './serverless-tasks.js';

/** A run of serverless compute: its configuration is its performance mode and names no node type. */
export function isServerlessRun(run: Pick<RecommenderRun, 'clusterConfig'>): boolean {
  const config = run.clusterConfig;
  return config !== null && 'performance_target' in config && !('node_type_id' in config);
}

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
