/** The engine Spark runs on: Photon has its own speed and its own price. */
export type SparkEngine = 'standard' | 'photon';

/**
 * Volumes attached to each node beyond the instance's own disks (EBS, managed disks): what spill and
 * shuffle run on when the instance has no local disk.
 */
export interface NodeStorage {
  /** The layout as its source names it ("ebs-hdd-1x500"): configurations with another layout are another family. */
  label: string;
  /** Throughput class: HDD-backed volumes are slow, SSD-backed fast. */
  speed: 'slow' | 'fast' | 'unknown';
  volumes: number | null;
  totalGb: number | null;
}

/**
 * A cluster configuration the optimizer may choose, as facts: the cloud's instance type, the engine, the
 * storage attached to each node, the node count. A platform's cluster model translates its shapes into
 * these once; nothing reads them back out of a name (`configurationName` writes the one name they have).
 * The market and the autoscaling bounds stay in the platform's shape: the optimizer sees them only
 * through the price.
 */
export interface Candidate {
  /** The key the platform learns and recommends by (a shape's id): equal ids, the same cluster. */
  id: string;
  /** As the cloud names it ("m5d.xlarge", "Standard_E8ds_v4"). */
  instanceType: string;
  engine: SparkEngine;
  storage: NodeStorage | null;
  nodes: number;
  vcpusPerNode: number;
  memoryGibPerNode: number;
  priceUsdPerNodeHour: number;
}

/** The facts of a configuration that make its hardware: what an instance family is made of. */
export type Hardware = Pick<Candidate, 'instanceType' | 'engine' | 'storage'>;

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
