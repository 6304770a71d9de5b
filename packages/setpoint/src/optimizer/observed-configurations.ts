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

export function observedConfigurations(
  observations: readonly Observation[],
  indexOf: (candidateId: string) => number | undefined,
): ObservedConfiguration[] {
  const groups = new Map<number, number[]>();
  for (const observation of observations) {
    const index = indexOf(observation.candidateId);
    if (index === undefined || !observation.completed || !(observation.runtimeS > 0)) continue;
    const logs = groups.get(index) ?? [];
    logs.push(Math.log(observation.runtimeS));
    groups.set(index, logs);
  }
  return [...groups].map(([index, logs]) => {
    let sum = 0;
    for (const value of logs) sum += value;
    const meanLog = sum / logs.length;
    let scatter = 0;
    for (const value of logs) scatter += (value - meanLog) ** 2;
    return { index, meanLog, runs: logs.length, scatter };
  });
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
