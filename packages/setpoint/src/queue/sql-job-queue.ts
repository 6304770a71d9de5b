import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../store/database-schema.js';
import type { DialectName } from '../store/dialect.js';
import { retryDelayMs } from './backoff.js';
import {
  type JobContext,
  type JobHandlers,
  type JobKind,
  type JobPayloads,
  type JobQueue,
  PermanentJobError,
  type RetryPolicy,
  type WorkerOptions,
} from './job-queue.js';

interface ClaimedJob {
  id: number;
  kind: string;
  payload: string;
  attempts: number;
  max_attempts: number;
}

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

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectName,
    private readonly policy: RetryPolicy,
    private readonly pollIntervalMs = 500,
  ) {}

  async enqueue<K extends JobKind>(
    kind: K,
    payload: JobPayloads[K],
    options: { idempotencyKey?: string } = {},
  ) {
    const now = Date.now();
    await this.db
      .insertInto('queue_jobs')
      .values({
        kind,
        payload: JSON.stringify(payload),
        state: 'queued',
        run_at: now,
        attempts: 0,
        max_attempts: this.policy.maxAttempts,
        locked_by: null,
        locked_until: null,
        last_error: null,
        idempotency_key: options.idempotencyKey ?? null,
        created_at: now,
        finished_at: null,
      })
      .onConflict((conflict) => conflict.column('idempotency_key').doNothing())
      .execute();
    for (const wake of this.#wake.splice(0)) wake();
  }

  async startWorkers(handlers: JobHandlers, options: WorkerOptions): Promise<void> {
    this.#stopping = false;
    for (let slot = 0; slot < options.concurrency; slot += 1) this.#loops.push(this.#loop(handlers, options));
  }

  async depth() {
    const rows = await this.db
      .selectFrom('queue_jobs')
      .select(['kind', 'state', (eb) => eb.fn.countAll<number>().as('count')])
      .where('state', 'in', ['queued', 'running'])
      .groupBy(['kind', 'state'])
      .execute();
    return rows.map((row) => ({
      kind: row.kind,
      state: row.state as 'queued' | 'running',
      count: Number(row.count),
    }));
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

  async #claim(kinds: string[]): Promise<ClaimedJob | undefined> {
    const now = Date.now();
    const lockedUntil = now + this.policy.leaseSeconds * 1000;
    const skipLocked = this.dialect === 'postgres' ? sql`for update skip locked` : sql``;
    const result = await sql<ClaimedJob>`
      update queue_jobs
      set state = 'running', locked_by = ${this.#workerId}, locked_until = ${lockedUntil}, attempts = attempts + 1
      where id = (
        select id from queue_jobs
        where ((state = 'queued' and run_at <= ${now}) or (state = 'running' and locked_until < ${now}))
          and kind in (${sql.join(kinds)})
        order by run_at, id
        limit 1
        ${skipLocked}
      )
      returning id, kind, payload, attempts, max_attempts`.execute(this.db);
    return result.rows[0];
  }

  async #run(job: ClaimedJob, handlers: JobHandlers, options: WorkerOptions): Promise<void> {
    const started = performance.now();
    const heartbeat = setInterval(
      () => {
        void this.#ownedJob(job.id)
          .set({ locked_until: Date.now() + this.policy.leaseSeconds * 1000 })
          .execute()
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
      await this.#ownedJob(job.id)
        .set({
          state: 'done',
          finished_at: Date.now(),
          locked_by: null,
          locked_until: null,
          last_error: null,
        })
        .execute();
      options.onAttempt?.(kind, 'done', (performance.now() - started) / 1000);
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
        await this.#ownedJob(job.id)
          .set({
            state: 'failed',
            finished_at: Date.now(),
            locked_by: null,
            locked_until: null,
            last_error: message,
          })
          .execute();
        options.onAttempt?.(kind, 'parked', (performance.now() - started) / 1000);
      } else {
        await this.#ownedJob(job.id)
          .set({
            state: 'queued',
            run_at: Date.now() + retryDelayMs(job.attempts, this.policy.retryDelaySeconds),
            locked_by: null,
            locked_until: null,
            last_error: message,
          })
          .execute();
        options.onAttempt?.(kind, 'retry', (performance.now() - started) / 1000);
      }
    }
  }

  /** Only the current lease holder may change a job (a stale worker that lost its lease cannot). */
  #ownedJob(id: number) {
    return this.db
      .updateTable('queue_jobs')
      .where('id', '=', id)
      .where('locked_by', '=', this.#workerId)
      .where('state', '=', 'running');
  }
}
