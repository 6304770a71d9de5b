import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { RunProfile } from 'setpoint/eventlog/run-profile';
import { EventLogProfiler } from 'setpoint/service/runs/eventlog-profiler';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import type { SpawnedServer } from '../support/spawn-server.js';
import { describeFull } from '../support/tiers.js';
import { fixtureFile, multipartBody } from './support/multipart.js';
import { startWorker } from './support/process-stack.js';
import { createHarness, eventually, fixturesDir, type Harness } from './support/service-harness.js';

// Whole pipelines run in these tests; a busy shared machine can make them slow.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const realProfiler = new EventLogProfiler();

async function uploadRun(h: Harness): Promise<{ projectId: string; runId: string }> {
  const project = (await h.request('POST', '/api/v1/projects', { name: 'fenced' })).json();
  const upload = multipartBody([
    { name: 'eventlog', filename: 'eventlog', content: fixtureFile(fixturesDir, 'databricks-aws-eventlog') },
    {
      name: 'cluster_report',
      filename: 'cluster_report.json',
      contentType: 'application/json',
      content: fixtureFile(fixturesDir, 'cluster-report.json'),
    },
  ]);
  const response = await h.app.inject({
    method: 'POST',
    url: `/api/v1/projects/${project.id}/runs`,
    headers: { ...upload.headers, authorization: `Bearer ${h.token}` },
    payload: upload.payload,
  });
  expect(response.statusCode).toBe(202);
  return { projectId: project.id, runId: response.json().id };
}

async function stateOf(h: Harness, ids: { projectId: string; runId: string }): Promise<string> {
  return (await h.request('GET', `/api/v1/projects/${ids.projectId}/runs/${ids.runId}`)).json()
    .pipeline_state;
}

/**
 * After the stale attempt returned: the run must stay DONE (it never moves back), the stale result
 * is logged as discarded, and one recommendation exists.
 */
async function expectFenced(
  h: Harness,
  ids: { projectId: string; runId: string },
  staleReturned: () => boolean,
) {
  await eventually(async () => (staleReturned() ? true : undefined), 90_000, 'the stale attempt');
  const discarded = await eventually(
    async () =>
      h.logLines().some((line) => line.includes('stale attempt discarded')) ||
      (await stateOf(h, ids)) !== 'DONE'
        ? true
        : undefined,
    30_000,
    'the stale attempt to finish',
  );
  expect(discarded).toBe(true);
  expect(await stateOf(h, ids)).toBe('DONE');
  expect(h.logLines().some((line) => line.includes('stale attempt discarded'))).toBe(true);
  const recommendations = (
    await h.request('GET', `/api/v1/projects/${ids.projectId}/recommendations`)
  ).json();
  expect(recommendations.total).toBe(1);
}

describe('fencing on SQLite: a parse that outlives its lease cannot move a finished run back', () => {
  let h: Harness | undefined;
  let other: SpawnedServer | undefined;

  afterEach(async () => {
    await other?.stop();
    await h?.close();
  });

  it('discards the stale attempt after another worker finished the run', async () => {
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let proceed: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      proceed = resolve;
    });
    let calls = 0;
    let staleReturned = false;
    let ids: { projectId: string; runId: string } | undefined;
    h = await createHarness({
      startWorkers: true,
      config: { jobLeaseSeconds: 1, workerConcurrency: 1 },
      analysis: {
        profiler: {
          async profile(directory: string): Promise<RunProfile> {
            calls += 1;
            const profile = await realProfiler.profile(directory);
            if (calls > 1) return profile;
            entered();
            await released;
            // The event loop stalls as a huge log once made it (no heartbeat, the lease expires)
            // until the other worker has finished the run, bounded.
            const db = new SqliteDatabase(path.join(h!.dataDir, 'setpoint.db'), { readonly: true });
            const deadline = Date.now() + 60_000;
            const pause = new Int32Array(new SharedArrayBuffer(4));
            const state = () =>
              (
                db.prepare('select pipeline_state from runs where id = ?').get(ids!.runId) as {
                  pipeline_state: string;
                }
              ).pipeline_state;
            while (state() !== 'DONE' && Date.now() < deadline) Atomics.wait(pause, 0, 0, 50);
            db.close();
            staleReturned = true;
            return profile;
          },
        },
      },
    });
    ids = await uploadRun(h);
    await inside;
    other = await startWorker({
      SETPOINT_DATA_DIR: h.dataDir,
      SETPOINT_LOG_LEVEL: 'info',
      SETPOINT_JOB_LEASE_SECONDS: '1',
      SETPOINT_JOB_RETRY_DELAY_SECONDS: '0',
    });
    proceed();
    await expectFenced(h, ids, () => staleReturned);
    expect(calls).toBe(1);
  });
});

describeFull('fencing on PostgreSQL: a pg-boss job expired mid-parse runs again', 'PostgreSQL', () => {
  let h: Harness | undefined;
  let database: TestPostgresDatabase | undefined;

  afterAll(async () => {
    await h?.close();
    await database?.drop();
  });

  it('keeps the result of the attempt that finished first', async () => {
    database = await createTestPostgresDatabase();
    let calls = 0;
    let staleReturned = false;
    let ids: { projectId: string; runId: string } | undefined;
    h = await createHarness({
      startWorkers: true,
      databaseUrl: database.url,
      config: { jobLeaseSeconds: 2, workerConcurrency: 2 },
      analysis: {
        profiler: {
          async profile(directory: string): Promise<RunProfile> {
            calls += 1;
            const profile = await realProfiler.profile(directory);
            if (calls > 1) return profile;
            // Slower than the lease: pg-boss expires this attempt and retries the job, which
            // finishes the run while this one still works.
            await eventually(
              async () => ((await stateOf(h!, ids!)) === 'DONE' ? true : undefined),
              90_000,
              'the retried attempt to finish the run',
            );
            staleReturned = true;
            return profile;
          },
        },
      },
    });
    ids = await uploadRun(h);
    await expectFenced(h, ids, () => staleReturned);
    expect(calls).toBeGreaterThanOrEqual(2);
  });
});
