import { describe, expect, it } from 'vitest';
import type { DatabricksRepository } from '../store/databricks-repository.js';
import type { DatabricksRunBillingTable } from '../store/databricks-tables.js';
import { reconcileBilling } from './billing-reconciler.js';

const dayMs = 86_400_000;
const noBill = { dbus: 0, usd: 0, records: 0, corrections: 0, billedUntilMs: Number.NaN };

function serverlessRow(createdAt: number): DatabricksRunBillingTable {
  return {
    run_id: 'run_1',
    project_id: 'prj_1',
    workspace_id: 'ws_1',
    databricks_run_id: '42',
    cluster_id: '',
    estimated_dbus: 0,
    estimated_dbu_usd: 0,
    billed_dbus: null,
    billed_dbu_usd: null,
    billing_rows: 0,
    restated: 0,
    billed_at: null,
    next_check_at: createdAt,
    created_at: createdAt,
    updated_at: createdAt,
    launch_windows: null,
    launch_delay_ms: null,
    cluster_terminated_at: createdAt,
    performance_target: 'STANDARD',
  };
}

function reconcileOnce(createdAt: number, now: number) {
  const saved: Array<{ nextCheckAt: number | null }> = [];
  const abandoned: string[] = [];
  const store = {
    billingDue: async () => [serverlessRow(createdAt)],
    saveBilled: async (_runId: string, billed: { nextCheckAt: number | null }) => {
      saved.push(billed);
    },
  } as unknown as DatabricksRepository;
  return reconcileBilling(
    {
      store,
      reader: { billing: async () => noBill },
      serverless: { runBill: async () => ({ ...noBill, performanceTarget: null }) },
      now: () => now,
      billNeverCame: async (row) => {
        abandoned.push(row.runId);
      },
    },
    'ws_1',
  ).then(() => ({ saved, abandoned }));
}

describe('reconcileBilling without a bill', () => {
  it('keeps looking while billing records may still land', async () => {
    const { saved, abandoned } = await reconcileOnce(0, dayMs);

    expect(saved[0]?.nextCheckAt).toBeGreaterThan(dayMs);
    expect(abandoned).toEqual([]);
  });

  it('stops after three days and says the bill never came, so a pending cost can say so', async () => {
    const { saved, abandoned } = await reconcileOnce(0, 3 * dayMs + 1);

    expect(saved[0]?.nextCheckAt).toBeNull();
    expect(abandoned).toEqual(['run_1']);
  });
});
