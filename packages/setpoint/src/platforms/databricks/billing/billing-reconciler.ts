import { parseJsonColumn } from '../../../store/json-column.js';
import type { ServerlessBillingReader } from '../serverless/serverless-billing-reader.js';
import type { DatabricksRepository } from '../store/databricks-repository.js';
import type { RunBilling, SystemTablesReader } from '../system-tables/system-tables-reader.js';
import {
  defaultLaunchDelayPolicy,
  type LaunchDelayPolicy,
  learnLaunchDelay,
  type PricedLaunchWindow,
} from './launch-delay.js';

const minuteMs = 60_000;
const hourMs = 60 * minuteMs;
/** Billing rows usually land within hours; after this long without any, Setpoint stops asking. */
const giveUpWithoutBillingMs = 3 * 24 * hourMs;
/** Databricks may still retract and restate records for a while after the first ones. */
const watchForRestatementsMs = 3 * 24 * hourMs;

export interface ReconcilePolicy {
  /** Next look while no billing row has arrived (default 30 min). */
  waitingIntervalMs: number;
  /** Next look for restatements once billed (default 6 h). */
  billedIntervalMs: number;
  /** How the launch delay is learned from the bills (default `defaultLaunchDelayPolicy`). */
  launchDelay?: LaunchDelayPolicy;
  /** The latest billed runs it is learned from, so it follows a workspace whose behaviour changes. */
  learnFromLatestRuns?: number;
}

export const defaultReconcilePolicy: ReconcilePolicy = {
  waitingIntervalMs: 30 * minuteMs,
  billedIntervalMs: 6 * hourMs,
};

const defaultLearnFromLatestRuns = 200;

/**
 * Databricks publishes each hour of usage on its own, so a cluster that lived across an hour boundary
 * is billed in parts: the bill is whole only once its records reach the hour the cluster ended in.
 */
function billCoversCluster(bill: RunBilling, clusterTerminatedAt: number | null): boolean {
  if (clusterTerminatedAt === null) return true;
  return Number.isFinite(bill.billedUntilMs) && bill.billedUntilMs >= clusterTerminatedAt;
}

/**
 * Reconciles estimated DBU costs with the bill: for every run of the workspace that is due (classic clusters
 * by their cluster's records, serverless runs by the run's serverless records), sums its
 * records in system.billing.usage (a RETRACTION cancels its ORIGINAL, a RESTATEMENT replaces it), stores
 * what was billed beside the estimate, and decides when to look again. One statement per run. A bill
 * still missing the cluster's last hour is waited for like a missing one, so neither the run's cost nor
 * the launch delay learns from a part. When a bill arrived, the workspace's launch delay is learned
 * again from its latest reconciled runs.
 */
export async function reconcileBilling(
  deps: {
    store: DatabricksRepository;
    reader: Pick<SystemTablesReader, 'billing'>;
    /** Where serverless runs' bills are read (a run marked with its performance mode has no cluster). */
    serverless?: Pick<ServerlessBillingReader, 'runBill'>;
    now?: () => number;
    /** The run's stored cost takes the bill (savings and ROI then use it). */
    reviseCost?: (row: { runId: string; projectId: string }, bill: RunBilling) => Promise<void>;
    /** Setpoint stopped looking for the run's bill (none after `giveUpWithoutBillingMs`). */
    billNeverCame?: (row: { runId: string; projectId: string }) => Promise<void>;
  },
  workspaceId: string,
  policy: ReconcilePolicy = defaultReconcilePolicy,
): Promise<{ checked: number; billed: number }> {
  const now = deps.now ?? Date.now;
  let billed = 0;
  const due = await deps.store.billingDue(workspaceId, now());
  for (const row of due) {
    const bill =
      row.performance_target !== null && deps.serverless
        ? await deps.serverless.runBill(row.databricks_run_id)
        : await deps.reader.billing(row.databricks_run_id, row.cluster_id);
    const at = now();
    if (bill.records === 0 || !billCoversCluster(bill, row.cluster_terminated_at)) {
      const givingUp = at - row.created_at > giveUpWithoutBillingMs;
      await deps.store.saveBilled(row.run_id, {
        billedDbus: null,
        billedDbuUsd: null,
        billingRows: 0,
        restated: false,
        billedAt: null,
        nextCheckAt: givingUp ? null : at + policy.waitingIntervalMs,
      });
      if (givingUp) await deps.billNeverCame?.({ runId: row.run_id, projectId: row.project_id });
      continue;
    }
    billed += 1;
    const firstBilledAt = row.billed_at ?? at;
    await deps.store.saveBilled(row.run_id, {
      billedDbus: bill.dbus,
      billedDbuUsd: bill.usd,
      billingRows: bill.records,
      restated: bill.corrections > 0,
      billedAt: firstBilledAt,
      nextCheckAt: at - firstBilledAt > watchForRestatementsMs ? null : at + policy.billedIntervalMs,
    });
    await deps.reviseCost?.({ runId: row.run_id, projectId: row.project_id }, bill);
  }
  if (billed > 0) {
    const rows = await deps.store.reconciledLaunches(
      workspaceId,
      policy.learnFromLatestRuns ?? defaultLearnFromLatestRuns,
    );
    const reconciled = rows.map((row) => ({
      windows: parseJsonColumn<PricedLaunchWindow[]>(row.launch_windows) ?? [],
      launchDelayMs: row.launch_delay_ms,
      estimatedDbus: row.estimated_dbus,
      billedDbus: row.billed_dbus ?? 0,
    }));
    await deps.store.saveLaunchDelay(
      workspaceId,
      learnLaunchDelay(reconciled, policy.launchDelay ?? defaultLaunchDelayPolicy),
    );
  }
  return { checked: due.length, billed };
}
