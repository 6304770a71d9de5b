/** Every job kind and its payload: producers and handlers are typed from this one map. */
export interface JobPayloads {
  /** Fetch the run's event log from `eventlog_uri` into the blob store. */
  'run.ingest': { runId: string };
  /** Event log → RunProfile. */
  'run.parse': { runId: string };
  /** RunProfile + cluster facts → cost breakdown. */
  'run.cost': { runId: string };
  /** Update the project's phase from its runs, then ask for a recommendation based on the run. */
  'project.model-update': { runId: string };
  /** Fill a PENDING recommendation through the recommender. */
  'recommendation.generate': { recommendationId: string };
  /**
   * Collect a finished Databricks run (run, cluster, events, event log) for the projects of its job,
   * or for one named project (a one-time run submitted for it, e.g. from Airflow).
   */
  'databricks.collect': { workspaceId: string; runId: string; projectId?: string | undefined };
  /** Write a recommendation into the Databricks job. */
  'databricks.apply': {
    projectId: string;
    recommendationId: string;
    actor: string;
    kind: 'apply' | 'auto-apply';
  };
  /** Look for finished runs of onboarded jobs that no webhook announced. */
  'databricks.reconcile': { workspaceId: string };
}

export type JobKind = keyof JobPayloads;

export const jobKinds = [
  'run.ingest',
  'run.parse',
  'run.cost',
  'project.model-update',
  'recommendation.generate',
  'databricks.collect',
  'databricks.apply',
  'databricks.reconcile',
] as const satisfies readonly JobKind[];

export interface JobContext {
  jobId: string;
  /** 1 on the first try. */
  attempt: number;
}

type JobHandler<K extends JobKind> = (payload: JobPayloads[K], context: JobContext) => Promise<void>;

/** Kinds only the Databricks integration produces and handles. */
export type IntegrationJobKind = 'databricks.collect' | 'databricks.apply' | 'databricks.reconcile';

export type JobHandlers = { [K in Exclude<JobKind, IntegrationJobKind>]: JobHandler<K> } & {
  [K in IntegrationJobKind]?: JobHandler<K>;
};

export interface ParkedJob {
  queue: 'sql' | 'pg-boss';
  jobId: string;
  kind: JobKind;
  payload: unknown;
  error: string;
  attempts: number;
}

export interface WorkerOptions {
  concurrency: number;
  /** Called once when a job has used its last attempt, before it is parked. */
  onParked(job: ParkedJob): Promise<void>;
  /** Reports every finished attempt (metrics). */
  onAttempt?(kind: JobKind, outcome: 'done' | 'retry' | 'parked', seconds: number): void;
}

export interface JobQueue {
  readonly name: 'sql' | 'pg-boss';
  enqueue<K extends JobKind>(
    kind: K,
    payload: JobPayloads[K],
    options?: { idempotencyKey?: string },
  ): Promise<void>;
  /** Starts consuming; resolves once the workers are running. */
  startWorkers(handlers: JobHandlers, options: WorkerOptions): Promise<void>;
  /** Jobs waiting or running, per kind. */
  depth(): Promise<Array<{ kind: string; state: 'queued' | 'running'; count: number }>>;
  /** Stops taking jobs and waits for running ones to finish. */
  stop(): Promise<void>;
}

export interface RetryPolicy {
  maxAttempts: number;
  retryDelaySeconds: number;
  leaseSeconds: number;
}

/** A job that must not be retried (bad input); it is parked at once with this message. */
export class PermanentJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentJobError';
  }
}
