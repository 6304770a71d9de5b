import type { SpeedupPrior } from '../../../service/recommendations/engine-trial.js';

/**
 * What Photon does to a job's executor task time before the job has run on it: a deliberately
 * conservative prior. Photon accelerates scans, joins, aggregations and writes; it leaves Python UDFs,
 * RDD code and unsupported operators on the standard engine, so a job may gain nothing (10th percentile
 * 1.0×). Databricks reports 2–3× on SQL benchmarks; the median is put lower, at 1.5×, and the 90th
 * percentile at 2.5×. The driver's share of the run is never sped up. The prior decides only whether one
 * trial run is worth making; after it, the job's own Photon run is the evidence.
 */
export const photonSpeedupPrior: SpeedupPrior = {
  low: 1,
  mid: 1.5,
  high: 2.5,
  source: 'a conservative prior (median 1.5×, 10th–90th percentile 1.0–2.5×) on executor task time',
};

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
