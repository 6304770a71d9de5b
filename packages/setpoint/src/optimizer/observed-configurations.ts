import type { Observation } from './types.js';

/**
 * A job's completed runs grouped by configuration: the model conditions on each configuration's mean
 * ln(runtime) with the noise divided by its run count, and reads the noise level from the scatter of
 * the repeats — so 200 runs on three configurations cost what three runs do.
 */
export interface ObservedConfiguration {
  /** Index of the configuration in the model's candidate list. */
  index: number;
  meanLog: number;
  runs: number;
  /** Sum of squared deviations of the runs' ln(runtime) from their mean. */
  scatter: number;
}

/**
 * A configuration's runs that are no longer held one by one (they left the recommendation's window of
 * runs): how many, and the sum and sum of squares of their ln(runtime), already scaled like observations.
 */
export interface SummarizedConfiguration {
  candidateId: string;
  runs: number;
  sumLog: number;
  sumSquaresLog: number;
}

export function observedConfigurations(
  observations: readonly Observation[],
  indexOf: (candidateId: string) => number | undefined,
  /** Earlier completed runs of the same segment, merged into their configurations' statistics. */
  earlier: readonly SummarizedConfiguration[] = [],
): ObservedConfiguration[] {
  const groups = new Map<number, number[]>();
  for (const observation of observations) {
    const index = indexOf(observation.candidateId);
    if (index === undefined || !observation.completed || !(observation.runtimeS > 0)) continue;
    const logs = groups.get(index) ?? [];
    logs.push(Math.log(observation.runtimeS));
    groups.set(index, logs);
  }
  const observed = new Map<number, ObservedConfiguration>();
  for (const [index, logs] of groups) {
    let sum = 0;
    for (const value of logs) sum += value;
    const meanLog = sum / logs.length;
    let scatter = 0;
    for (const value of logs) scatter += (value - meanLog) ** 2;
    observed.set(index, { index, meanLog, runs: logs.length, scatter });
  }
  for (const totals of earlier) {
    const index = indexOf(totals.candidateId);
    if (index === undefined || !(totals.runs > 0)) continue;
    const meanLog = totals.sumLog / totals.runs;
    const part = {
      index,
      meanLog,
      runs: totals.runs,
      scatter: Math.max(0, totals.sumSquaresLog - totals.sumLog * meanLog),
    };
    const known = observed.get(index);
    observed.set(index, known ? combined(known, part) : part);
  }
  return [...observed.values()];
}

/** Two disjoint sets of runs on one configuration as one (the parallel mean and scatter combination). */
function combined(a: ObservedConfiguration, b: ObservedConfiguration): ObservedConfiguration {
  const runs = a.runs + b.runs;
  const delta = b.meanLog - a.meanLog;
  return {
    index: a.index,
    runs,
    meanLog: a.meanLog + (delta * b.runs) / runs,
    scatter: a.scatter + b.scatter + (delta * delta * a.runs * b.runs) / runs,
  };
}

/**
 * ln-likelihood of the repeats' scatter around their configuration means under a noise variance: the part
 * of the data the means do not carry, which is what tells a 2%-noise job from a 20%-noise one.
 */
export function scatterLogLikelihood(
  configurations: readonly ObservedConfiguration[],
  noiseVariance: number,
): number {
  let value = 0;
  for (const configuration of configurations) {
    if (configuration.runs < 2) continue;
    const degrees = configuration.runs - 1;
    value +=
      -0.5 * degrees * Math.log(2 * Math.PI * noiseVariance) -
      configuration.scatter / (2 * noiseVariance) -
      0.5 * Math.log(configuration.runs);
  }
  return value;
}
