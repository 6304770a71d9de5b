import { countOf } from '@setpoint/foundation/words';
import { costRange, knownCosts, range } from '../../../service/recommender/monitored-ranges.js';
import type { RecommendationInput, RecommendationOutput } from '../../../service/recommender/recommender.js';
import { isEmrServerlessConfiguration } from './emr-serverless-run.js';

/**
 * An EMR Serverless job is monitored and advised, never resized: EMR Serverless sizes its workers itself, so
 * there is no cluster to recommend. Its recommendation keeps the job on its application and predicts from its
 * own runs there: runtime (from submission, the queue and the workers' start-up included) and billed cost, 10th
 * to 90th percentile.
 */
export function emrServerlessMonitoring(input: RecommendationInput): RecommendationOutput {
  const basedOn = input.runs.find((run) => run.id === input.basedOnRunId) ?? input.runs.at(-1);
  const onServerless = input.runs.filter((run) => isEmrServerlessConfiguration(run.clusterConfig));
  const succeeded = onServerless.filter((run) => run.status === 'SUCCESS');
  const runtimes = succeeded.map((run) => run.profile.analysis.wallTimeMs / 60_000).filter((m) => m > 0);
  const sla = input.project.settings.slaMinutes;
  const slaWords =
    sla === null
      ? 'no SLA is set'
      : `${runtimes.filter((minutes) => minutes <= sla).length} of ${countOf(runtimes.length, 'successful run')} met the ${sla}-minute SLA`;
  return {
    phase: 'MONITORING',
    configuration: basedOn?.clusterConfig ?? {},
    prediction: { runtimeMinutes: range(runtimes), costUsd: costRange(knownCosts(succeeded)) },
    explanation:
      'EMR Serverless job: EMR Serverless sizes its workers, so Setpoint changes nothing and watches its runtime ' +
      `(from submission, start-up included) and its billed cost. ${slaWords}.`,
  };
}
