/**
 * Every job kind and its payload: producers and handlers are typed from this one map. A platform adds
 * its own kinds by augmenting this interface from its folder, and declares them in `jobKinds`.
 */
export interface JobPayloads {
  /** Fetch the run's event log from `eventlog_uri` into the blob store. */
  'run.ingest': { runId: string };
  /** Event log → RunProfile. */
  'run.parse': { runId: string };
  /** RunProfile + cluster facts → cost breakdown. */
  'run.cost': { runId: string };
  /** A processed run asks for a recommendation based on it (history from before a reset does not). */
  'run.request-recommendation': { runId: string };
  /** `run.request-recommendation` by its former name: jobs queued before an upgrade. Kept for one release. */
  'project.model-update': { runId: string };
  /**
   * Fill a PENDING recommendation through the recommender. `pinned`: the request named its run, and the
   * recommendation learns from the runs up to it; otherwise from the newest runs when it is computed.
   */
  'recommendation.generate': { recommendationId: string; pinned?: boolean };
}

export type JobKind = keyof JobPayloads;

/** The kinds of the core's pipeline; platforms declare theirs (`PlatformPlugin.jobKinds`). */
export const coreJobKinds = [
  'run.ingest',
  'run.parse',
  'run.cost',
  'run.request-recommendation',
  'recommendation.generate',
  'project.model-update',
] as const satisfies readonly JobKind[];

export interface JobContext {
  jobId: string;
  /** 1 on the first try. */
  attempt: number;
}

export type JobHandler<K extends JobKind> = (payload: JobPayloads[K], context: JobContext) => Promise<void>;

/** A worker runs the kinds it has handlers for; others wait for a worker that can. */
export type JobHandlers = { [K in JobKind]?: JobHandler<K> };

export type CoreJobKind = (typeof coreJobKinds)[number];

/** The pipeline's handlers: one for every core kind. */
export type CoreJobHandlers = { [K in CoreJobKind]: JobHandler<K> };

export interface ParkedJob {
  queue: 'sql' | 'pg-boss';
  jobId: string;
  kind: JobKind;
  payload: unknown;
  error: string;
  attempts: number;
}

/** One finished attempt of a job, timed (epoch milliseconds). */
export interface JobAttempt {
  kind: JobKind;
  payload: unknown;
  outcome: 'done' | 'retry' | 'parked';
  /** When the job could first be claimed for this attempt: when it was queued, or its retry's time. */
  readyAt: number;
  startedAt: number;
  finishedAt: number;
}

export interface WorkerOptions {
  concurrency: number;
  /** Called once when a job has used its last attempt, before it is parked. */
  onParked(job: ParkedJob): Promise<void>;
  /** Reports every finished attempt (metrics; where a run's time went, in the Job Bank). */
  onAttempt?(attempt: JobAttempt): void;
  /**
   * The workers can no longer reach their queue (its database unreachable for longer than the queue's
   * loss limit, or the queue stopped by itself): called once, with why. A worker process exits so its
   * supervisor restarts it; the jobs it held are retried once their leases expire.
   */
  onQueueLost?(reason: string): void;
  /** A job's result could not be recorded because the queue's connection dropped (the job runs again). */
  onConnectionLost?(message: string): void;
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
