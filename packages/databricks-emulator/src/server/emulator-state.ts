import type { SimClusterSpec } from '../physics/cluster-spec.js';
import type { EventLogEntry } from '../physics/event-log-writer.js';
import type { WorkloadSegment } from '../physics/simulate-cluster.js';
import type { ClusterSimulation, SimulationIdentity } from '../physics/simulation-types.js';
import type {
  DestinationConfig,
  JobClusterSettings,
  JobSettings,
  NewClusterSettings,
  PerformanceTarget,
  TaskSettings,
} from './schema.js';

/** Per simulated minute (absolute epoch ms): worker core time spent busy and bytes shuffled. */
export type BusyByMinute = ReadonlyMap<number, { busyCoreMs: number; shuffleBytes: number }>;

export interface JobRecord {
  jobId: number;
  createdTimeMs: number;
  creatorUserName: string;
  settings: JobSettings;
  runCount: number;
}

export type TaskOutcome = 'SUCCESS' | 'FAILED' | 'UPSTREAM_FAILED' | 'CANCELED' | 'TIMEDOUT';

export interface TaskRunRecord {
  runId: number;
  taskKey: string;
  settings: TaskSettings;
  clusterId?: string;
  /** When the task left the queue (its dependencies were done); cluster creation starts here. */
  startMs: number;
  execStartMs: number;
  execEndMs: number;
  endMs: number;
  outcome: TaskOutcome;
  message: string;
  /** Set on a task that ran on an all-purpose cluster (`existing_cluster_id`): the Spark context it used. */
  allPurpose?: { sparkContextId: string };
  /** Set on a task that ran on serverless compute: its mode, the DBUs it was billed and how far it scaled. */
  serverless?: {
    performanceTarget: PerformanceTarget;
    dbus: number;
    peakWorkers: number;
    nodeSeconds: number;
  };
}

export interface RunRecord {
  runId: number;
  jobId?: number;
  numberInJob: number;
  runName: string;
  runType: 'JOB_RUN' | 'SUBMIT_RUN';
  trigger: 'ONE_TIME';
  creatorUserName: string;
  startMs: number;
  endMs: number;
  tasks: TaskRunRecord[];
  jobClusters: JobClusterSettings[];
  jobParameters: Record<string, string> | undefined;
  settings: JobSettings;
  /** The performance mode the run's serverless tasks used (`effective_performance_target`). */
  performanceTarget: PerformanceTarget;
  cancelledAtMs?: number;
  /** When the job's `timeout_seconds` stopped the run. */
  timedOutAtMs?: number;
  startNotified: boolean;
  endNotified: boolean;
}

export interface ClusterRecord {
  clusterId: string;
  clusterName: string;
  clusterKey: string;
  spec: NewClusterSettings;
  sim: SimClusterSpec;
  identity: SimulationIdentity;
  requestedAtMs: number;
  segments: WorkloadSegment[];
  simulation: ClusterSimulation;
  runId: number;
  jobId?: number;
  jobName: string;
  cutAtMs?: number;
  lastLogAttemptMs?: number;
  finalLogsDelivered: boolean;
  eventLog?: EventLogEntry[];
  /**
   * Set when the cluster's Spark detail (tasks, stages, jobs) was retired after its logs were delivered:
   * the per-minute summary the system tables still need.
   */
  retiredBusyByMinute?: BusyByMinute;
}

/** One start → termination of an all-purpose cluster: create, start, restart and a job's auto-start begin one. */
export interface AllPurposeLife {
  startMs: number;
  readyMs: number;
  /** The shape it runs with (an edit applies from the next start). */
  sim: SimClusterSpec;
  sparkContextId: string;
  /** `restart` and `edit` of a running cluster show RESTARTING until it runs again. */
  restart: boolean;
  /** When a user stopped it (terminate, restart, edit of a running cluster, permanent delete). */
  stoppedMs?: number;
  /** End of the last task run on it: autotermination counts idle minutes from here (or from readyMs). */
  lastActivityMs: number;
  /** Task executions on it with the workers they held (an autoscaling cluster grows for them). */
  work: Array<{ fromMs: number; toMs: number; workers: number }>;
}

export interface AllPurposeVersion {
  atMs: number;
  spec: NewClusterSettings;
}

/** A cluster created with `clusters/create`: shared, long-lived, billed as all-purpose compute. */
export interface AllPurposeCluster {
  clusterId: string;
  clusterName: string;
  spec: NewClusterSettings;
  sim: SimClusterSpec;
  createdMs: number;
  lives: AllPurposeLife[];
  /** Every spec it had (create, then each edit), for `system.compute.clusters`. */
  versions: AllPurposeVersion[];
  /** `EDITED` events; the lifecycle events are derived from the lives. */
  edits: number[];
  permanentlyDeleted: boolean;
}

export interface DestinationRecord {
  id: string;
  displayName: string;
  destinationType: 'EMAIL' | 'SLACK' | 'MICROSOFT_TEAMS' | 'PAGERDUTY' | 'WEBHOOK';
  config: DestinationConfig;
}

export interface WebhookDelivery {
  atMs: number;
  eventType: string;
  destinationId: string;
  url: string;
  payload: Record<string, unknown>;
  dropped: boolean;
  status?: number;
  error?: string;
}

export interface WorkspaceObject {
  path: string;
  objectType: 'NOTEBOOK' | 'FILE' | 'DIRECTORY';
  language?: string;
  content: string;
  modifiedMs: number;
  objectId: number;
}

/** A compute policy: its definition is the JSON text Databricks stores and returns. */
export interface PolicyRecord {
  policyId: string;
  name: string;
  definition: string;
  description: string | undefined;
  createdAtMs: number;
}

/** An instance pool: clusters on it take their node type (and market) from it. */
export interface InstancePoolRecord {
  instancePoolId: string;
  name: string;
  nodeTypeId: string;
  awsAttributes: Record<string, unknown> | undefined;
  azureAttributes: Record<string, unknown> | undefined;
  minIdleInstances: number;
  maxCapacity: number | undefined;
}

/** A request the workspace refused because a cluster in it breaks a validity rule. */
export interface RefusalRecord {
  atMs: number;
  /** The API path refused ("/api/2.2/jobs/update"). */
  endpoint: string;
  rule: string;
  field: string;
  message: string;
}

/** Everything the emulated workspace holds, in memory. */
export class EmulatorState {
  readonly jobs = new Map<number, JobRecord>();
  readonly runs = new Map<number, RunRecord>();
  readonly taskRuns = new Map<number, { run: RunRecord; task: TaskRunRecord }>();
  readonly clusters = new Map<string, ClusterRecord>();
  /** Clusters created with clusters/create (job clusters are in `clusters`). */
  readonly allPurposeClusters = new Map<string, AllPurposeCluster>();
  readonly destinations = new Map<string, DestinationRecord>();
  readonly secretScopes = new Map<string, Map<string, { value: string; updatedMs: number }>>();
  readonly workspace = new Map<string, WorkspaceObject>();
  readonly idempotency = new Map<string, number>();
  readonly policies = new Map<string, PolicyRecord>();
  readonly instancePools = new Map<string, InstancePoolRecord>();
  readonly webhookDeliveries: WebhookDelivery[] = [];
  /** Requests refused for an invalid cluster, oldest first (the admin API lists them). */
  readonly refusals: RefusalRecord[] = [];
  private nextJobId = 1001;
  private nextRunId = 5001;
  private nextObjectId = 3_000_000_000;

  allocateJobId(): number {
    const id = this.nextJobId;
    this.nextJobId += 1;
    return id;
  }

  allocateRunId(): number {
    const id = this.nextRunId;
    this.nextRunId += 1;
    return id;
  }

  allocateObjectId(): number {
    this.nextObjectId += 1;
    return this.nextObjectId;
  }
}
