import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { retryDelayMs } from 'setpoint/queue/backoff';
import {
  coreJobKinds,
  type JobHandlers,
  type JobQueue,
  type ParkedJob,
  PermanentJobError,
} from 'setpoint/queue/job-queue';
import { PgBossJobQueue } from 'setpoint/queue/pg-boss-job-queue';
import { SqlJobQueue } from 'setpoint/queue/sql-job-queue';
import { openDatabase, type StoreConnection } from 'setpoint/store/open-database';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { describeFull } from '../support/tiers.js';
import { eventually } from './support/service-harness.js';

type ParseHandler = JobHandlers['run.parse'];

function handlersWith(parse: ParseHandler): JobHandlers {
  const idle = async () => undefined;
  return {
    'run.ingest': idle,
    'run.parse': parse,
    'run.cost': idle,
    'run.request-recommendation': idle,
    'project.model-update': idle,
    'recommendation.generate': idle,
    'databricks.collect': idle,
    'databricks.apply': idle,
    'databricks.reconcile': idle,
  };
}

interface QueueFixture {
  queue: JobQueue;
  store: StoreConnection;
  cleanup(): Promise<void>;
}

/** The same behaviour is required of both queue implementations. */
function queueContract(name: string, make: (maxAttempts: number) => Promise<QueueFixture>) {
  describe(name, () => {
    let fixture: QueueFixture | undefined;
    afterEach(async () => {
      await fixture?.queue.stop();
      await fixture?.cleanup();
      fixture = undefined;
    });

    it('retries a failing job until it succeeds', async () => {
      fixture = await make(3);
      const attempts: number[] = [];
      const parked: ParkedJob[] = [];
      await fixture.queue.startWorkers(
        handlersWith(async (_payload, context) => {
          attempts.push(context.attempt);
          if (context.attempt < 3) throw new Error(`transient failure ${context.attempt}`);
        }),
        { concurrency: 1, onParked: async (job) => void parked.push(job) },
      );
      await fixture.queue.enqueue('run.parse', { runId: 'r-retry' });

      await eventually(async () => (attempts.length >= 3 ? true : undefined), 60_000, 'three attempts');
      expect(attempts).toEqual([1, 2, 3]);
      expect(parked).toEqual([]);
    });

    it('parks a job that fails on every attempt, with its last error', async () => {
      fixture = await make(2);
      const parked: ParkedJob[] = [];
      let calls = 0;
      await fixture.queue.startWorkers(
        handlersWith(async () => {
          calls += 1;
          throw new Error(`poison ${calls}`);
        }),
        { concurrency: 1, onParked: async (job) => void parked.push(job) },
      );
      await fixture.queue.enqueue('run.parse', { runId: 'r-poison' });

      const job = await eventually(async () => parked[0], 60_000, 'a parked job');
      expect(job).toMatchObject({
        kind: 'run.parse',
        payload: { runId: 'r-poison' },
        error: 'poison 2',
        attempts: 2,
      });
      expect(calls).toBe(2);
    });

    it('parks a permanent failure without retrying it', async () => {
      fixture = await make(5);
      const parked: ParkedJob[] = [];
      let calls = 0;
      await fixture.queue.startWorkers(
        handlersWith(async () => {
          calls += 1;
          throw new PermanentJobError('event log is not Spark');
        }),
        { concurrency: 1, onParked: async (job) => void parked.push(job) },
      );
      await fixture.queue.enqueue('run.parse', { runId: 'r-bad' });

      const job = await eventually(async () => parked[0], 60_000, 'a parked job');
      expect(job.error).toBe('event log is not Spark');
      expect(calls).toBe(1);
    });
  });
}

const policy = (maxAttempts: number) => ({ maxAttempts, retryDelaySeconds: 0, leaseSeconds: 30 });

queueContract('SqlJobQueue on SQLite', async (maxAttempts) => {
  const store = await openDatabase({ dataDir: mkdtempSync(path.join(tmpdir(), 'setpoint-queue-')) });
  return {
    queue: new SqlJobQueue(store.db, store.dialect, policy(maxAttempts), 20),
    store,
    cleanup: () => store.close(),
  };
});

describe('SqlJobQueue leases and idempotency', () => {
  it('takes over a job whose worker stopped renewing its lease', async () => {
    const store = await openDatabase({ dataDir: mkdtempSync(path.join(tmpdir(), 'setpoint-queue-')) });
    const queue = new SqlJobQueue(
      store.db,
      store.dialect,
      { maxAttempts: 3, retryDelaySeconds: 0, leaseSeconds: 30 },
      20,
    );
    try {
      // The row a crashed worker leaves behind: running, lease expired.
      await store.db
        .insertInto('queue_jobs')
        .values({
          kind: 'run.parse',
          payload: JSON.stringify({ runId: 'r-orphan' }),
          state: 'running',
          run_at: 0,
          attempts: 1,
          max_attempts: 3,
          locked_by: 'dead-worker',
          locked_until: Date.now() - 1,
          last_error: null,
          idempotency_key: null,
          created_at: 0,
          finished_at: null,
        })
        .execute();
      const seen: Array<{ runId: string; attempt: number }> = [];
      await queue.startWorkers(
        handlersWith(
          async (payload, context) => void seen.push({ runId: payload.runId, attempt: context.attempt }),
        ),
        { concurrency: 1, onParked: async () => undefined },
      );
      await eventually(async () => (seen.length > 0 ? true : undefined));
      expect(seen).toEqual([{ runId: 'r-orphan', attempt: 2 }]);
      const row = await eventually(async () => {
        const job = await store.db.selectFrom('queue_jobs').selectAll().executeTakeFirstOrThrow();
        return job.state === 'done' ? job : undefined;
      });
      expect(row.locked_by).toBeNull();
    } finally {
      await queue.stop();
      await store.close();
    }
  });

  it('lets the event loop turn between jobs, even when no job waits for I/O', async () => {
    const store = await openDatabase({ dataDir: mkdtempSync(path.join(tmpdir(), 'setpoint-queue-')) });
    const queue = new SqlJobQueue(store.db, store.dialect, policy(3), 20);
    try {
      const jobs = 20;
      for (let i = 0; i < jobs; i++) await queue.enqueue('run.parse', { runId: `r-${i}` });
      let done = 0;
      // what an HTTP request or a health check is: a callback of a later turn of the event loop
      const doneAtNextTurn: number[] = [];
      await queue.startWorkers(
        handlersWith(async () => {
          done += 1;
          if (done === 1) setImmediate(() => doneAtNextTurn.push(done));
        }),
        { concurrency: 1, onParked: async () => undefined },
      );
      await eventually(async () => (done === jobs ? true : undefined), 60_000, 'every job');

      expect(doneAtNextTurn).toHaveLength(1);
      expect(doneAtNextTurn[0]).toBeLessThan(3);
    } finally {
      await queue.stop();
      await store.close();
    }
  });

  it('enqueues a job once per idempotency key', async () => {
    const store = await openDatabase({ dataDir: mkdtempSync(path.join(tmpdir(), 'setpoint-queue-')) });
    const queue = new SqlJobQueue(store.db, store.dialect, {
      maxAttempts: 3,
      retryDelaySeconds: 0,
      leaseSeconds: 30,
    });
    try {
      await queue.enqueue('run.parse', { runId: 'r1' }, { idempotencyKey: 'run.parse:r1' });
      await queue.enqueue('run.parse', { runId: 'r1' }, { idempotencyKey: 'run.parse:r1' });
      expect(await queue.depth()).toEqual([{ kind: 'run.parse', state: 'queued', count: 1 }]);
    } finally {
      await store.close();
    }
  });
});

describe('retry backoff', () => {
  it('doubles per attempt within ±50 % jitter', () => {
    expect(retryDelayMs(1, 5, () => 0.5)).toBe(5000);
    expect(retryDelayMs(3, 5, () => 0.5)).toBe(20_000);
    expect(retryDelayMs(3, 5, () => 0)).toBe(10_000);
    expect(retryDelayMs(3, 5, () => 0.999)).toBeLessThan(30_000);
  });
});

describeFull('job queues on PostgreSQL', 'PostgreSQL', () => {
  const databases: TestPostgresDatabase[] = [];
  afterEach(async () => {
    for (const database of databases.splice(0)) await database.drop();
  });

  queueContract('SqlJobQueue on PostgreSQL', async (maxAttempts) => {
    const database = await createTestPostgresDatabase();
    databases.push(database);
    const store = await openDatabase({ databaseUrl: database.url, dataDir: tmpdir() });
    return {
      queue: new SqlJobQueue(store.db, store.dialect, policy(maxAttempts), 20),
      store,
      cleanup: () => store.close(),
    };
  });

  queueContract('PgBossJobQueue', async (maxAttempts) => {
    const database = await createTestPostgresDatabase();
    databases.push(database);
    const store = await openDatabase({ databaseUrl: database.url, dataDir: tmpdir() });
    return {
      queue: new PgBossJobQueue(database.url, policy(maxAttempts), coreJobKinds),
      store,
      cleanup: () => store.close(),
    };
  });
});
