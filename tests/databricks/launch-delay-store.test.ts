import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStore } from 'setpoint/composition/open-store';
import { reconcileBilling } from 'setpoint/platforms/databricks/billing/billing-reconciler';
import { createDatabricksRepository } from 'setpoint/platforms/databricks/store/databricks-repository';
import type { RunBilling } from 'setpoint/platforms/databricks/system-tables/system-tables-reader';
import type { StoreConnection } from 'setpoint/store/open-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { describeFull } from '../support/tiers.js';

const windows = [{ lowMs: 12_000, highMs: 72_000, dbusPerHour: 1.5 }];
const hourMs = 3_600_000;

/**
 * What the launch delay is learned from, and what it learned, reads back the same on both databases; a
 * bill is taken only once it is whole.
 */
function launchDelayStoreContract(open: () => Promise<StoreConnection>) {
  let store: StoreConnection;
  beforeAll(async () => {
    store = await open();
  });
  afterAll(async () => {
    await store?.close();
  });

  /** A run's DBU estimate as collection stores it: 2 DBUs, $0.30. */
  const estimate = (
    runId: string,
    launchWindows: object[],
    launchDelayMs: number | null,
    { workspaceId = 'wsp_a', clusterTerminatedAt = null as number | null } = {},
  ) =>
    createDatabricksRepository(store.db).saveBillingEstimate({
      runId,
      projectId: 'prj_a',
      workspaceId,
      databricksRunId: `db-${runId}`,
      clusterId: `c-${runId}`,
      estimatedDbus: 2,
      estimatedDbuUsd: 0.3,
      nextCheckAt: 0,
      launchWindows,
      launchDelayMs,
      clusterTerminatedAt,
    });

  it('keeps each estimate’s launch windows and gives back the latest billed runs', async () => {
    const repository = createDatabricksRepository(store.db);
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

  it('waits for the hour the cluster ended in before it takes the bill or learns from it', async () => {
    // a cluster that ran from 00:50 to 01:10: Databricks publishes its 00:00 and its 01:00 hour apart
    const repository = createDatabricksRepository(store.db);
    const firstHour: RunBilling = { dbus: 1, usd: 0.15, records: 1, corrections: 0, billedUntilMs: hourMs };
    const bothHours: RunBilling = {
      dbus: 2,
      usd: 0.3,
      records: 2,
      corrections: 0,
      billedUntilMs: 2 * hourMs,
    };
    const policy = { waitingIntervalMs: 1_000, billedIntervalMs: 1_000 };
    const reconcile = (bills: Record<string, RunBilling>, now: number) =>
      reconcileBilling(
        { store: repository, reader: { billing: async (runId) => bills[runId]! }, now: () => now },
        'wsp_b',
        policy,
      );
    const billingOf = async (runId: string) => (await repository.billingOfRuns([runId]))[0]!;
    await estimate('run_split', windows, null, { workspaceId: 'wsp_b', clusterTerminatedAt: 70 * 60_000 });
    await estimate('run_unknown_end', windows, null, { workspaceId: 'wsp_b' });

    const partial = { 'db-run_split': firstHour, 'db-run_unknown_end': firstHour };
    expect(await reconcile(partial, 10)).toEqual({ checked: 2, billed: 1 });
    const waiting = await billingOf('run_split');
    expect(waiting.billed_dbus).toBeNull();
    expect(Number(waiting.next_check_at)).toBe(10 + policy.waitingIntervalMs);
    // a run whose cluster end is not known takes its first records, as before the end was kept
    expect((await billingOf('run_unknown_end')).billed_dbus).toBe(1);
    expect((await repository.reconciledLaunches('wsp_b', 10)).map((row) => row.billed_dbus)).toEqual([1]);

    const whole = { 'db-run_split': bothHours, 'db-run_unknown_end': firstHour };
    expect(await reconcile(whole, 2_000)).toEqual({ checked: 2, billed: 2 });
    expect(await billingOf('run_split')).toMatchObject({ billed_dbus: 2, billing_rows: 2 });
    expect(await repository.reconciledLaunches('wsp_b', 10)).toHaveLength(2);
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
