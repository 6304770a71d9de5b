import { existsSync } from 'node:fs';
import path from 'node:path';
import { createRepositories } from 'setpoint/service/repositories';
import { pruneEventLogs } from 'setpoint/service/runs/eventlog-retention';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { processedFixtureRun } from './support/fixture-runs.js';
import { createHarness, type Harness } from './support/service-harness.js';

vi.setConfig({ testTimeout: 150_000, hookTimeout: 150_000 });

describe('event-log retention', () => {
  let h: Harness;
  let projectId: string;
  const runIds: string[] = [];

  beforeAll(async () => {
    h = await createHarness({ startWorkers: true });
    projectId = (await h.request('POST', '/api/v1/projects', { name: 'retained' })).json().id;
    for (const external of ['r-1', 'r-2', 'r-3'])
      runIds.push(await processedFixtureRun(h, projectId, external));
  });

  afterAll(async () => {
    await h?.close();
  });

  const blobKeyOf = async (runId: string) =>
    (await createRepositories(h.services.store.db).runs.find(runId))?.eventlogBlobKey ?? null;

  it('keeps the newest runs’ event logs, deletes the others from the blob store, and keeps their cost', async () => {
    const keys = await Promise.all(runIds.map(blobKeyOf));
    expect(keys.every((key) => key !== null)).toBe(true);
    const deps = { runs: createRepositories(h.services.store.db).runs, blobs: h.services.blobs };

    const deleted = await pruneEventLogs(deps, { days: 0, runsPerProject: 1 });

    expect(deleted).toBe(2);
    expect(await blobKeyOf(runIds[0] ?? '')).toBeNull();
    expect(await blobKeyOf(runIds[1] ?? '')).toBeNull();
    expect(await blobKeyOf(runIds[2] ?? '')).toBe(keys[2]);
    expect(existsSync(path.join(h.dataDir, 'blobs', keys[0] ?? 'missing'))).toBe(false);
    expect(existsSync(path.join(h.dataDir, 'blobs', keys[2] ?? 'missing'))).toBe(true);
    const oldest = (await h.request('GET', `/api/v1/projects/${projectId}/runs/${runIds[0]}`)).json();
    expect(oldest.cost.total_usd).toBeGreaterThan(0);
  });

  it('deletes logs older than the age limit, and nothing when both limits are off', async () => {
    const deps = { runs: createRepositories(h.services.store.db).runs, blobs: h.services.blobs };

    expect(await pruneEventLogs(deps, { days: 0, runsPerProject: 0 }, Date.now() + 10 * 86_400_000)).toBe(0);
    expect(await pruneEventLogs(deps, { days: 30, runsPerProject: 0 })).toBe(0);
    expect(await pruneEventLogs(deps, { days: 30, runsPerProject: 0 }, Date.now() + 31 * 86_400_000)).toBe(1);
    expect(await blobKeyOf(runIds[2] ?? '')).toBeNull();
  });
});
