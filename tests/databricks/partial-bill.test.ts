import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStore } from 'setpoint/composition/open-store';
import { reconcileBilling } from 'setpoint/platforms/databricks/billing/billing-reconciler';
import {
  createDatabricksRepository,
  type DatabricksRepository,
} from 'setpoint/platforms/databricks/store/databricks-repository';
import type { RunBilling } from 'setpoint/platforms/databricks/system-tables/system-tables-reader';
import type { StoreConnection } from 'setpoint/store/open-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const hourMs = 3_600_000;
const policy = { waitingIntervalMs: 1_000, billedIntervalMs: 1_000 };

/** A cluster that ran from 00:50 to 01:10: Databricks publishes its 00:00 and its 01:00 hour apart. */
const clusterEnd = 70 * 60_000;
const firstHour: RunBilling = { dbus: 0.5, usd: 0.07, records: 1, corrections: 0, billedUntilMs: hourMs };
const bothHours: RunBilling = { dbus: 1, usd: 0.14, records: 2, corrections: 0, billedUntilMs: 2 * hourMs };

describe('a bill published an hour at a time', () => {
  let store: StoreConnection;
  let repository: DatabricksRepository;
  beforeAll(async () => {
    store = await openStore({
      dataDir: mkdtempSync(path.join(tmpdir(), 'setpoint-partial-bill-')),
      databaseUrl: undefined,
    });
    repository = createDatabricksRepository(store.db);
  });
  afterAll(async () => store?.close());

  const estimate = (runId: string, clusterTerminatedAt: number | null) =>
    repository.saveBillingEstimate({
      runId,
      projectId: 'prj_a',
      workspaceId: 'wsp_a',
      databricksRunId: `db-${runId}`,
      clusterId: `c-${runId}`,
      estimatedDbus: 1,
      estimatedDbuUsd: 0.14,
      nextCheckAt: 0,
      launchWindows: [{ lowMs: 0, highMs: 60_000, dbusPerHour: 1.5 }],
      launchDelayMs: null,
      clusterTerminatedAt,
    });
  const reconcile = (bill: RunBilling, now: number) =>
    reconcileBilling(
      { store: repository, reader: { billing: async () => bill }, now: () => now },
      'wsp_a',
      policy,
    );
  const billingOf = async (runId: string) => (await repository.billingOfRuns([runId]))[0]!;

  it('waits for the hour the cluster ended in before it takes the bill or learns from it', async () => {
    await estimate('run_split', clusterEnd);
    expect(await reconcile(firstHour, 10)).toEqual({ checked: 1, billed: 0 });
    const waiting = await billingOf('run_split');
    expect(waiting.billed_dbus).toBeNull();
    expect(waiting.next_check_at).toBe(10 + policy.waitingIntervalMs);
    expect(await repository.reconciledLaunches('wsp_a', 10)).toEqual([]);

    expect(await reconcile(bothHours, 2_000)).toEqual({ checked: 1, billed: 1 });
    const whole = await billingOf('run_split');
    expect(whole.billed_dbus).toBe(1);
    expect(whole.billing_rows).toBe(2);
    expect(await repository.reconciledLaunches('wsp_a', 10)).toHaveLength(1);
  });

  it('takes the first records of a run whose cluster end is not known, as before', async () => {
    await estimate('run_unknown_end', null);
    await reconcile(firstHour, 3_000);
    expect((await billingOf('run_unknown_end')).billed_dbus).toBe(0.5);
  });
});
