/** A cluster configuration the optimizer may choose: instance type × node count (later: spot, Photon, EBS, autoscale). */
export interface Candidate {
  id: string;
  instanceType: string;
  nodes: number;
  vcpusPerNode: number;
  memoryGibPerNode: number;
  priceUsdPerNodeHour: number;
}

/** Optional signals a run's profile can add (Spark event log and cluster metrics). */
export interface RunProfileFeatures {
  totalExecutorTimeS?: number;
  spillBytes?: number;
  peakMemoryGib?: number;
  inputBytes?: number;
}

/** One finished run of the job on a candidate configuration. */
export interface Observation {
  candidateId: string;
  runtimeS: number;
  /** What the run cost, its billed overhead included. */
  costUsd: number;
  /**
   * The part of `costUsd` billed outside the runtime (a cluster's start-up and idle minutes), which does
   * not scale with it; absent: none.
   */
  overheadUsd?: number;
  completed: boolean;
  profile?: RunProfileFeatures;
}

export type Preference = 'economy' | 'balanced' | 'performance';

export type Phase = 'LEARNING' | 'OPTIMIZING' | 'REBASING' | 'MONITORING';

/** Low / mid / high of a predicted quantity (10th, 50th, 90th percentile). */
export interface Range {
  low: number;
  mid: number;
  high: number;
}

export function candidateRateUsdPerHour(candidate: Candidate): number {
  return candidate.nodes * candidate.priceUsdPerNodeHour;
}

export function runCostUsd(candidate: Candidate, runtimeS: number): number {
  return (candidateRateUsdPerHour(candidate) * runtimeS) / 3600;
}
