import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../store/database-schema.js';
import type { DialectName } from '../store/dialect.js';
import { retryDelayMs } from './backoff.js';
import {
  type JobAttempt,
  type JobContext,
  type JobHandlers,
  type JobKind,
  type JobPayloads,
  type JobQueue,
  PermanentJobError,
  type RetryPolicy,
  type WorkerOptions,
} from './job-queue.js';

import {
  type ClaimedJob,
  createQueueJobRepository,
  type QueueJobRepository,
} from './queue-job-repository.js';

/**
 * The embedded queue: a `queue_jobs` table in Setpoint's own database. A job is claimed with one
 * UPDATE … RETURNING (one write transaction: atomic on SQLite, SKIP LOCKED on PostgreSQL) that sets a
 * lease; a heartbeat extends it while the handler runs; an expired lease (a crashed worker) makes the
 * job claimable again.
 */
export class SqlJobQueue implements JobQueue {
  readonly name = 'sql' as const;
  readonly #workerId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  #stopping = false;
  #loops: Promise<void>[] = [];
  #wake: Array<() => void> = [];
  readonly #jobs: QueueJobRepository;

  constructor(
    db: Kysely<Database>,
    dialect: DialectName,
    private readonly policy: RetryPolicy,
    private readonly pollIntervalMs = 500,
  ) {
    this.#jobs = createQueueJobRepository(db, dialect);
  }

  async enqueue<K extends JobKind>(
    kind: K,
    payload: JobPayloads[K],
    options: { idempotencyKey?: string } = {},
  ) {
    await this.#jobs.insert({
      kind,
      payload: JSON.stringify(payload),
      maxAttempts: this.policy.maxAttempts,
      idempotencyKey: options.idempotencyKey ?? null,
      now: Date.now(),
    });
    for (const wake of this.#wake.splice(0)) wake();
  }

  async startWorkers(handlers: JobHandlers, options: WorkerOptions): Promise<void> {
    this.#stopping = false;
    for (let slot = 0; slot < options.concurrency; slot += 1) this.#loops.push(this.#loop(handlers, options));
  }

  depth() {
    return this.#jobs.depth();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    for (const wake of this.#wake.splice(0)) wake();
    await Promise.all(this.#loops);
    this.#loops = [];
  }

  async #loop(handlers: JobHandlers, options: WorkerOptions): Promise<void> {
    // A worker claims only kinds it can run; others wait for a worker that can.
    const kinds = Object.keys(handlers).filter((kind) => handlers[kind as JobKind] !== undefined);
    while (!this.#stopping) {
      const job = await this.#claim(kinds);
      if (job) {
        await this.#run(job, handlers, options);
        // On SQLite every statement resolves at once: a backlog of jobs without other I/O (costing,
        // modeling) would run back to back in one turn of the event loop, health checks and HTTP
        // answers waiting behind all of them. Each job ends its turn.
        await nextTurn();
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.pollIntervalMs);
        this.#wake.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /**
   * Each claim holds its own attempt token (not just the worker's id), so an attempt that lost its
   * lease cannot finish, retry or extend a job another slot of the same process claimed since.
   */
  async #claim(kinds: string[]): Promise<(ClaimedJob & { token: string }) | undefined> {
    const now = Date.now();
    const token = `${this.#workerId}:${randomUUID().slice(0, 8)}`;
    const job = await this.#jobs.claim(kinds, token, now, now + this.policy.leaseSeconds * 1000);
    return job && { ...job, token };
  }

  async #run(
    job: ClaimedJob & { token: string },
    handlers: JobHandlers,
    options: WorkerOptions,
  ): Promise<void> {
    const startedAt = Date.now();
    const attempted = (outcome: JobAttempt['outcome']) =>
      options.onAttempt?.({
        kind: job.kind as JobKind,
        payload: JSON.parse(job.payload),
        outcome,
        readyAt: job.run_at,
        startedAt,
        finishedAt: Date.now(),
      });
    const heartbeat = setInterval(
      () => {
        void this.#jobs
          .updateOwned(job.id, job.token, { locked_until: Date.now() + this.policy.leaseSeconds * 1000 })
          .catch(() => undefined);
      },
      Math.max(250, (this.policy.leaseSeconds * 1000) / 3),
    );
    const kind = job.kind as JobKind;
    const context: JobContext = { jobId: String(job.id), attempt: job.attempts };
    try {
      const handler = handlers[kind] as (payload: unknown, context: JobContext) => Promise<void>;
      await handler(JSON.parse(job.payload), context);
      clearInterval(heartbeat);
      await this.#jobs.updateOwned(job.id, job.token, {
        state: 'done',
        finished_at: Date.now(),
        locked_by: null,
        locked_until: null,
        last_error: null,
      });
      attempted('done');
    } catch (error) {
      clearInterval(heartbeat);
      const message = error instanceof Error ? error.message : String(error);
      const permanent = error instanceof PermanentJobError;
      if (permanent || job.attempts >= job.max_attempts) {
        await options.onParked({
          queue: 'sql',
          jobId: String(job.id),
          kind,
          payload: JSON.parse(job.payload),
          error: message,
          attempts: job.attempts,
        });
        await this.#jobs.updateOwned(job.id, job.token, {
          state: 'failed',
          finished_at: Date.now(),
          locked_by: null,
          locked_until: null,
          last_error: message,
        });
        attempted('parked');
      } else {
        await this.#jobs.updateOwned(job.id, job.token, {
          state: 'queued',
          run_at: Date.now() + retryDelayMs(job.attempts, this.policy.retryDelaySeconds),
          locked_by: null,
          locked_until: null,
          last_error: message,
        });
        attempted('retry');
      }
    }
  }
}
