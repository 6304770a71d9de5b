import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStore } from 'setpoint/composition/open-store';
import { createDatabricksRepository } from 'setpoint/platforms/databricks/store/databricks-repository';
import type { StoreConnection } from 'setpoint/store/open-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { describeFull } from '../support/tiers.js';

const windows = [{ lowMs: 12_000, highMs: 72_000, dbusPerHour: 1.5 }];

/** What the launch delay is learned from, and what it learned, reads back the same on both databases. */
function launchDelayStoreContract(open: () => Promise<StoreConnection>) {
  let store: StoreConnection;
  beforeAll(async () => {
    store = await open();
  });
  afterAll(async () => {
    await store?.close();
  });

  it('keeps each estimate’s launch windows and gives back the latest billed runs', async () => {
    const repository = createDatabricksRepository(store.db);
    const estimate = (runId: string, launchWindows: object[], launchDelayMs: number | null) =>
      repository.saveBillingEstimate({
        runId,
        projectId: 'prj_a',
        workspaceId: 'wsp_a',
        databricksRunId: `db-${runId}`,
        clusterId: `c-${runId}`,
        estimatedDbus: 2,
        estimatedDbuUsd: 0.3,
        nextCheckAt: 0,
        launchWindows,
        launchDelayMs,
        clusterTerminatedAt: null,
      });
    await estimate('run_1', windows, null);
    await estimate('run_2', windows, 30_000);
    await estimate('run_3', [], null);
    await estimate('run_4', windows, null);
    const billed = { billedDbuUsd: 0.31, billingRows: 1, restated: false, billedAt: 1, nextCheckAt: null };
    for (const runId of ['run_1', 'run_2', 'run_3'])
      await repository.saveBilled(runId, { ...billed, billedDbus: 2.05 });

    // run_3 was timed by its events (no windows), run_4 has no bill yet
    const rows = await repository.reconciledLaunches('wsp_a', 10);
    expect(rows.map((row) => row.launch_delay_ms).sort()).toEqual([30_000, null]);
    expect(rows.map((row) => JSON.parse(row.launch_windows!))).toEqual([windows, windows]);
    expect(rows.every((row) => row.billed_dbus === 2.05 && row.estimated_dbus === 2)).toBe(true);
    expect(await repository.reconciledLaunches('wsp_a', 1)).toHaveLength(1);
    expect(await repository.reconciledLaunches('wsp_other', 10)).toEqual([]);
  });

  it('keeps one learned launch delay per workspace, replaced in place', async () => {
    const repository = createDatabricksRepository(store.db);
    expect(await repository.launchDelay('wsp_a')).toBeUndefined();
    await repository.saveLaunchDelay('wsp_a', {
      launchDelayMs: null,
      runs: 2,
      defaultError: null,
      learnedError: null,
      reason: '2 reconciled runs; 6 needed',
    });
    await repository.saveLaunchDelay('wsp_a', {
      launchDelayMs: 30_000,
      runs: 8,
      defaultError: 0.02,
      learnedError: 0.004,
      reason: 'a 30 s launch delay',
    });
    expect(await repository.launchDelay('wsp_a')).toMatchObject({
      launch_delay_ms: 30_000,
      runs: 8,
      default_error: 0.02,
      learned_error: 0.004,
    });
  });
}

describe('launch delay tables on SQLite', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-launch-store-'));
  launchDelayStoreContract(() => openStore({ dataDir, databaseUrl: undefined }));
});

describeFull('launch delay tables on PostgreSQL', 'a PostgreSQL server (SETPOINT_TEST_PG_URL)', () => {
  let database: TestPostgresDatabase;
  beforeAll(async () => {
    database = await createTestPostgresDatabase();
  });
  // registered before the contract's own after-hook, so it runs after the store's pool has closed
  afterAll(async () => {
    await database?.drop();
  });
  launchDelayStoreContract(() => openStore({ dataDir: '/nonexistent', databaseUrl: database.url }));
});
