import { type Kysely, sql } from 'kysely';
import type { Database, QueueJobsTable } from '../store/database-schema.js';
import type { DialectName } from '../store/dialect.js';

export interface ClaimedJob {
  id: number;
  kind: string;
  payload: string;
  attempts: number;
  max_attempts: number;
  /** When the job became claimable (queued, or due for its retry). */
  run_at: number;
}

type JobUpdate = Partial<
  Pick<QueueJobsTable, 'state' | 'run_at' | 'locked_by' | 'locked_until' | 'last_error' | 'finished_at'>
>;

/** The embedded queue's table: inserts, the atomic claim, and lease-checked updates. */
export function createQueueJobRepository(db: Kysely<Database>, dialect: DialectName) {
  return {
    /** Queues a job; a job with the same idempotency key is not queued twice. */
    async insert(job: {
      kind: string;
      payload: string;
      maxAttempts: number;
      idempotencyKey: string | null;
      now: number;
    }) {
      await db
        .insertInto('queue_jobs')
        .values({
          kind: job.kind,
          payload: job.payload,
          state: 'queued',
          run_at: job.now,
          attempts: 0,
          max_attempts: job.maxAttempts,
          locked_by: null,
          locked_until: null,
          last_error: null,
          idempotency_key: job.idempotencyKey,
          created_at: job.now,
          finished_at: null,
        })
        .onConflict((conflict) => conflict.column('idempotency_key').doNothing())
        .execute();
    },

    async depth(): Promise<Array<{ kind: string; state: 'queued' | 'running'; count: number }>> {
      const rows = await db
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
    },

    /**
     * Claims the next due job of `kinds` (or one whose lease expired) with one UPDATE … RETURNING: atomic
     * on SQLite, SKIP LOCKED on PostgreSQL.
     */
    async claim(
      kinds: string[],
      workerId: string,
      now: number,
      lockedUntil: number,
    ): Promise<ClaimedJob | undefined> {
      const skipLocked = dialect === 'postgres' ? sql`for update skip locked` : sql``;
      const result = await sql<ClaimedJob>`
        update queue_jobs
        set state = 'running', locked_by = ${workerId}, locked_until = ${lockedUntil}, attempts = attempts + 1
        where id = (
          select id from queue_jobs
          where ((state = 'queued' and run_at <= ${now}) or (state = 'running' and locked_until < ${now}))
            and kind in (${sql.join(kinds)})
          order by run_at, id
          limit 1
          ${skipLocked}
        )
        returning id, kind, payload, attempts, max_attempts, run_at`.execute(db);
      return result.rows[0];
    },

    /** Only the current lease holder may change a job (a stale worker that lost its lease cannot). */
    async updateOwned(id: number, workerId: string, changes: JobUpdate): Promise<void> {
      await db
        .updateTable('queue_jobs')
        .set(changes)
        .where('id', '=', id)
        .where('locked_by', '=', workerId)
        .where('state', '=', 'running')
        .execute();
    },
  };
}

export type QueueJobRepository = ReturnType<typeof createQueueJobRepository>;
