import type { ModelProfile } from '../../../eventlog/model-profile.js';
import type { SpeedupPrior } from '../../../service/recommender/cluster-model.js';

/**
 * What Photon does to a job's executor task time before the job has run on it, when its run says nothing
 * of how that time is spent (no task metrics): a deliberately conservative prior. Photon accelerates
 * scans, joins, aggregations and writes; it leaves Python UDFs, RDD code and unsupported operators on the
 * standard engine, so a job may gain nothing (10th percentile 1.0×). Databricks reports 2–3× on SQL
 * benchmarks; the median is put lower, at 1.5×, and the 90th percentile at 2.5×. The driver's share of
 * the run is never sped up. The prior decides only whether one trial run is worth making; after it, the
 * job's own Photon run is the evidence.
 */
export const genericPhotonSpeedupPrior: SpeedupPrior = {
  low: 1,
  mid: 1.5,
  high: 2.5,
  source: 'a conservative prior (median 1.5×, 10th–90th percentile 1.0–2.5×) on executor task time',
  ofJob: false,
};

/**
 * Photon's speed-up of the CPU work it runs (vectorized scans, joins, aggregations, expressions), as
 * 10th, 50th and 90th percentile. Published measurements put whole TPC-DS queries at about 2× on the same
 * instances, I/O and shuffle included; on their CPU share (about three quarters of task time) that is
 * 3×. 1× at the 10th percentile keeps "no gain" likely: operators Photon does not support stay on the JVM.
 */
const photonCpuSpeedup = { low: 1, mid: 3, high: 6 };

/**
 * Stages whose task time Photon leaves on the standard engine: Python UDFs and pandas functions run in
 * Python workers, outside any engine.
 */
const pythonStage = /python|pandas|\budf\b/i;

/** Speed-ups are stated to two decimals: the prior is not known closer than that. */
const twoDecimals = (value: number) => Math.round(value * 100) / 100;

/**
 * The Photon speed-up prior for one job, from what its run on the standard engine shows: Photon speeds
 * up CPU work in the engine, not time spent waiting on storage or the network, nor Python UDFs. The
 * share `c` of executor task time that is CPU work outside Python stages carries `photonCpuSpeedup`
 * into a speed-up of executor task time, 1 / ((1 − c) + c / s): an I/O-bound scan is given little, a
 * CPU-bound SQL job much. A run without task metrics gets the generic prior.
 */
export function photonSpeedupPriorOf(profile: Pick<ModelProfile, 'stages'> | null): SpeedupPrior {
  const stages = profile?.stages ?? [];
  const taskMs = stages.reduce((sum, stage) => sum + stage.executorRunTimeMs, 0);
  const cpuMs = stages.reduce((sum, stage) => sum + stage.executorCpuTimeMs, 0);
  if (!(taskMs > 0 && cpuMs > 0)) return genericPhotonSpeedupPrior;
  const engineCpuMs = stages
    .filter((stage) => !pythonStage.test(stage.name))
    .reduce((sum, stage) => sum + Math.min(stage.executorCpuTimeMs, stage.executorRunTimeMs), 0);
  const share = Math.min(1, engineCpuMs / taskMs);
  const speedup = (cpu: number) => twoDecimals(1 / (1 - share + share / cpu));
  const low = speedup(photonCpuSpeedup.low);
  const mid = speedup(photonCpuSpeedup.mid);
  const high = speedup(photonCpuSpeedup.high);
  return {
    low,
    mid,
    high,
    source:
      `this run's task metrics: ${Math.round(share * 100)}% of executor task time is CPU work Photon ` +
      `runs (outside Python), at ${photonCpuSpeedup.mid}× (${photonCpuSpeedup.low}–${photonCpuSpeedup.high}×) ` +
      `a prior of ${mid}× (${low}–${high}×) on executor task time`,
    ofJob: true,
  };
}

/** Photon runs on Databricks Runtime 9.1 LTS and later. */
const photonMinimumRuntime = [9, 1] as const;

/**
 * Whether the cluster's Databricks Runtime can run Photon, or why not. An unnamed or unreadable
 * `spark_version` (a custom image) is not taken as a no: apply would be refused by Databricks instead.
 */
export function photonRuntimeRefusal(sparkVersion: string | null | undefined): string | null {
  const match = sparkVersion ? /^(\d+)\.(\d+)\./.exec(sparkVersion) : null;
  if (!match) return null;
  const major = Number(match[1]);
  const minor = Number(match[2]);
  const [minMajor, minMinor] = photonMinimumRuntime;
  if (major > minMajor || (major === minMajor && minor >= minMinor)) return null;
  return `Databricks Runtime ${major}.${minor} cannot run Photon (it needs ${minMajor}.${minMinor} or later)`;
}
