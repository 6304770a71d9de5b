import { defaultWarehouseId } from '@setpoint/databricks-emulator/server/statements-routes';
import { median } from '@setpoint/foundation/statistics';
import { createStatementClient } from 'setpoint/platforms/databricks/api/statements';
import { reconcileBilling } from 'setpoint/platforms/databricks/billing/billing-reconciler';
import {
  dbusAtLaunchDelay,
  defaultLaunchDelayPolicy,
  type PricedLaunchWindow,
} from 'setpoint/platforms/databricks/billing/launch-delay';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { createSystemTablesReader } from 'setpoint/platforms/databricks/system-tables/system-tables-reader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  type Harness,
  importJob,
  jobIdByName,
  processedRun,
  startHarness,
} from './integration-harness.js';

const hourMs = 3_600_000;
/** Few runs suffice in a test; the default asks for more before it trusts the bills. */
const minimumRuns = 3;

describe('the launch delay learned from reconciled bills', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      seed: 33,
      emulator: { systemTables: { billingLagMs: hourMs, restatementRate: 0 } },
    });
    await databricksIntegrationOf(h.server.services).store.saveWorkspaceLink(h.workspaceId, {
      sqlWarehouseId: defaultWarehouseId,
    });
  });
  afterAll(async () => h?.close());

  it('places new nodes with the delay the bills taught, and their estimates move closer to the bill', async () => {
    const integration = databricksIntegrationOf(h.server.services);
    const { jobId, projectId } = await importJob(h, await jobIdByName(h.databricks, 'Daily aggregation'), {
      slaMinutes: 240,
    });
    const runOnce = async () => {
      const databricksRunId = await h.databricks.runNow(jobId);
      return (await processedRun(h, projectId, databricksRunId)).id;
    };
    const clock = (advanceMs: number) =>
      fetch(`${h.emulator.url}/emulator/admin/clock`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.emulator.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ advance_ms: advanceMs }),
      }).then((response) => expect(response.status).toBe(200));
    const { transport } = await integration.connect(h.workspaceId);
    const reader = createSystemTablesReader(
      createStatementClient(transport, { warehouseId: defaultWarehouseId }),
    );
    /** Moves the simulated clock on until every given run's bill has arrived and been reconciled. */
    const billed = (runIds: string[]) =>
      eventually(
        async () => {
          await reconcileBilling({ store: integration.store, reader }, h.workspaceId, {
            waitingIntervalMs: 0,
            billedIntervalMs: 0,
            launchDelay: { ...defaultLaunchDelayPolicy, minimumRuns },
          });
          const rows = await integration.store.billingOfRuns(runIds);
          if (rows.length === runIds.length && rows.every((row) => row.billed_dbus !== null)) return rows;
          await clock(hourMs / 2);
          return undefined;
        },
        'the bills of the runs',
        120_000,
      );
    const errorOf = (estimated: number, bill: number) => Math.abs(estimated - bill) / bill;

    // runs until the bills teach a delay: at least `minimumRuns`, more when one is set aside as an outlier
    const before: string[] = [];
    let first: Awaited<ReturnType<typeof billed>> = [];
    let learned: Awaited<ReturnType<typeof integration.store.launchDelay>>;
    while (before.length < minimumRuns + 3) {
      before.push(await runOnce());
      if (before.length < minimumRuns) continue;
      first = await billed(before);
      learned = await integration.store.launchDelay(h.workspaceId);
      if (learned?.launch_delay_ms !== null && learned?.launch_delay_ms !== undefined) break;
    }
    // estimated before anything was learned: each node in the middle of its first node_timeline minute
    expect(first.every((row) => row.launch_delay_ms === null && row.launch_windows !== null)).toBe(true);
    expect(learned!.runs).toBeGreaterThanOrEqual(minimumRuns);
    expect(learned!.launch_delay_ms, learned!.reason).not.toBeNull();
    expect(learned!.learned_error!).toBeLessThan(learned!.default_error!);

    const after: string[] = [];
    for (let run = 0; run < 2; run += 1) after.push(await runOnce());
    const later = await billed(after);
    for (const row of later) {
      // the new estimates used the learned delay, and beat the middle of the minute on their own bills
      expect(row.launch_delay_ms).toBe(learned!.launch_delay_ms);
      const reconciled = {
        windows: JSON.parse(row.launch_windows!) as PricedLaunchWindow[],
        launchDelayMs: row.launch_delay_ms,
        estimatedDbus: row.estimated_dbus,
        billedDbus: row.billed_dbus!,
      };
      expect(errorOf(row.estimated_dbus, row.billed_dbus!)).toBeLessThan(
        errorOf(dbusAtLaunchDelay(reconciled, null), row.billed_dbus!),
      );
    }
    const errorsBefore = first.map((row) => errorOf(row.estimated_dbus, row.billed_dbus!));
    const errorsAfter = later.map((row) => errorOf(row.estimated_dbus, row.billed_dbus!));
    expect(median(errorsAfter)!).toBeLessThan(median(errorsBefore)!);
  }, 240_000);
});
