import type { SimClusterSpec } from './cluster-spec.js';
import type { NodeUsage, SimulatedCost } from './cost.js';

export type TaskEndKind = 'Success' | 'OutOfMemory' | 'ExecutorLost' | 'Resubmitted';

export interface TaskMetricsRecord {
  deserializeMs: number;
  runMs: number;
  cpuNs: number;
  gcMs: number;
  peakExecutionMemory: number;
  inputBytes: number;
  inputRecords: number;
  outputBytes: number;
  outputRecords: number;
  shuffleRemoteBytes: number;
  shuffleLocalBytes: number;
  shuffleFetchWaitMs: number;
  shuffleRecordsRead: number;
  shuffleWriteBytes: number;
  shuffleWriteNs: number;
  shuffleRecordsWritten: number;
  memorySpilled: number;
  diskSpilled: number;
  resultSize: number;
}

export interface TaskRecord {
  taskId: number;
  stageId: number;
  index: number;
  attempt: number;
  executorId: string;
  host: string;
  launchMs: number;
  finishMs: number;
  end: TaskEndKind;
  shuffleMap: boolean;
  metrics: TaskMetricsRecord;
}

export interface StageRecord {
  stageId: number;
  name: string;
  tasks: number;
  parentIds: number[];
  submittedMs: number;
  completedMs: number;
  failureReason?: string;
}

export interface SparkJobRecord {
  jobId: number;
  description: string;
  segment: number;
  stageIds: number[];
  submittedMs: number;
  completedMs: number;
  succeeded: boolean;
  failureMessage?: string;
}

export interface ExecutorRecord {
  executorId: string;
  host: string;
  instanceId: string;
  cores: number;
  spot: boolean;
  addedMs: number;
  removedMs?: number;
  removedReason?: string;
}

export interface ClusterEventRecord {
  offsetMs: number;
  type: string;
  details: Record<string, unknown>;
}

export interface SegmentResult {
  workloadName: string;
  label: string;
  startMs: number;
  endMs: number;
  outcome: 'SUCCESS' | 'FAILED' | 'SKIPPED';
  failureMessage?: string;
}

/** Identifiers the event log and cluster events carry; the HTTP layer fills them from its own state. */
export interface SimulationIdentity {
  clusterId: string;
  clusterName: string;
  /** Decimal digits of the int64 SparkContext id. */
  sparkContextId: string;
  driverIp: string;
  workspaceId: string;
  jobId?: string;
  runId?: string;
  region: string;
}

/** Everything a simulated cluster session produced. All `*Ms` are offsets from the cluster request. */
export interface ClusterSimulation {
  spec: SimClusterSpec;
  outcome: 'SUCCESS' | 'FAILED';
  failureMessage?: string;
  clusterReadyMs: number;
  executionStartMs: number;
  executionEndMs: number;
  terminatingMs: number;
  terminatedMs: number;
  segments: SegmentResult[];
  clusterEvents: ClusterEventRecord[];
  executors: ExecutorRecord[];
  jobs: SparkJobRecord[];
  stages: StageRecord[];
  tasks: TaskRecord[];
  usage: NodeUsage[];
  cost: SimulatedCost;
  dataScale: number;
}
