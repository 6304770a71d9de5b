import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { coreJobKinds } from 'setpoint/queue/job-queue';
import { PgBossJobQueue } from 'setpoint/queue/pg-boss-job-queue';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import {
  createTestPostgresDatabase,
  type TestPostgresDatabase,
  testPostgresUrl,
} from '../support/postgres.js';
import type { SpawnedServer } from '../support/spawn-server.js';
import { describeFull } from '../support/tiers.js';
import { deploymentEnv, startWorker } from './support/process-stack.js';
import { eventually } from './support/service-harness.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const lossLimitSeconds = 3;

function exitOf(child: ChildProcess, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the worker did not exit within ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** Runs one statement as the cluster's admin role (outside the test database). */
async function asAdmin(sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: testPostgresUrl });
  await client.connect();
  try {
    return await client.query(sql, values);
  } finally {
    await client.end();
  }
}

function terminateConnections(database: string) {
  return asAdmin(
    'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
    [database],
  );
}

describeFull('a worker that loses its PostgreSQL queue', 'PostgreSQL', () => {
  let database: TestPostgresDatabase;
  let databaseName: string;
  let worker: SpawnedServer | undefined;
  let producer: PgBossJobQueue | undefined;

  beforeAll(async () => {
    database = await createTestPostgresDatabase();
    databaseName = new URL(database.url).pathname.slice(1);
    worker = await startWorker(
      deploymentEnv(database.url, { SETPOINT_WORKER_QUEUE_LOSS_SECONDS: String(lossLimitSeconds) }),
    );
  });

  // registered first: runs last, once the worker and the producer let go of the database
  afterAll(async () => {
    await database?.drop();
  });
  afterAll(async () => {
    if (worker && worker.process.exitCode === null) await worker.stop();
    await producer?.stop();
  });

  async function parkedCount(): Promise<number> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const result = await client.query<{ count: string }>('select count(*) as count from parked_jobs');
      return Number(result.rows[0]?.count ?? 0);
    } finally {
      await client.end();
    }
  }

  it('keeps working through dropped connections while the database is reachable', async () => {
    await terminateConnections(databaseName);
    // a job after the connections dropped: the worker takes it (a parse of a run that does not exist is
    // parked at once), so it reconnected instead of idling
    producer = new PgBossJobQueue(
      database.url,
      { maxAttempts: 5, retryDelaySeconds: 0, leaseSeconds: 300 },
      coreJobKinds,
    );
    await producer.enqueue('run.parse', { runId: 'run-that-does-not-exist' });
    await eventually(async () => ((await parkedCount()) === 1 ? true : undefined), 60_000, 'the parked job');
    await producer.stop();
    producer = undefined;
    expect(worker?.process.exitCode).toBeNull();
  });

  it('exits non-zero with one line saying why once the database stays unreachable', async () => {
    const child = worker?.process as ChildProcess;
    await asAdmin(`alter database ${databaseName} allow_connections false`);
    await terminateConnections(databaseName);
    const code = await exitOf(child, 90_000);
    expect(code).toBe(75);
    const lines = (worker?.output() ?? '')
      .split('\n')
      .filter((line) => line.includes('worker lost its queue'));
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0] as string) as { level: number; reason: string; msg: string };
    expect(entry.level).toBe(60);
    expect(entry.reason).toMatch(/unreachable for \d+ s/);
    expect(entry.msg).toContain('exiting so a supervisor restarts it');
  });
});
