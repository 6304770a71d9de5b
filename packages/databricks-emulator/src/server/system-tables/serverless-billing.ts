import { createRandom, deriveSeed } from '@setpoint/foundation/random';
import type { RunRecord } from '../emulator-state.js';
import { workspaceUser } from '../workspace-user.js';
import { day, iso, json, stableId } from './record-values.js';

const hourMs = 3_600_000;

/**
 * Serverless jobs compute is billed per DBU under a regional SKU, the same SKU and price per DBU in both
 * performance modes; the emulated workspace runs in us-west-2 (AWS) or westus2 (Azure).
 */
export const serverlessSkus = {
  aws: { cloud: 'AWS', sku: 'PREMIUM_JOBS_SERVERLESS_COMPUTE_US_WEST_OREGON' },
  azure: { cloud: 'AZURE', sku: 'PREMIUM_JOBS_SERVERLESS_COMPUTE_WEST_US_2' },
} as const;

export const serverlessListPrices = [
  { cloud: 'AWS', sku: serverlessSkus.aws.sku, previousUsd: 0.37, usd: 0.35 },
  { cloud: 'AZURE', sku: serverlessSkus.azure.sku, previousUsd: 0.45, usd: 0.45 },
] as const;

export interface ServerlessBillingOptions {
  accountId: string;
  workspaceId: string;
  cloud: 'aws' | 'azure';
  seed: number;
  billingLagMs: number;
  restatementRate: number;
  restatementDelayMs: number;
}

/**
 * The usage records of a run's serverless tasks, as Databricks writes them: per hour of execution, several
 * records with the same `job_id` and `job_run_id` (its distributed architecture splits a run's usage; their
 * sum is the run's DBUs), no `cluster_id`, `product_features.is_serverless` and the run's
 * `performance_target`; published after the billing lag, some first wrong and later retracted and restated.
 */
export function serverlessBillingRows(run: RunRecord, options: ServerlessBillingOptions) {
  const { cloud, sku } = serverlessSkus[options.cloud];
  const random = createRandom(deriveSeed(options.seed, run.runId, 'serverless-billing'));
  const perHour = new Map<number, number>();
  for (const task of run.tasks) {
    if (!task.serverless || task.execEndMs <= task.execStartMs) continue;
    const dbuPerMs = task.serverless.dbus / (task.execEndMs - task.execStartMs);
    for (let hour = Math.floor(task.execStartMs / hourMs) * hourMs; hour < task.execEndMs; hour += hourMs) {
      const overlap = Math.min(task.execEndMs, hour + hourMs) - Math.max(task.execStartMs, hour);
      perHour.set(hour, (perHour.get(hour) ?? 0) + overlap * dbuPerMs);
    }
  }
  const record = (hour: number, part: number, quantity: number, type: string, visibleAt: number) => ({
    record_id: stableId(options.workspaceId, run.runId, hour, part, type),
    account_id: options.accountId,
    workspace_id: options.workspaceId,
    sku_name: sku,
    cloud,
    usage_start_time: iso(hour),
    usage_end_time: iso(hour + hourMs),
    usage_date: day(hour),
    custom_tags: json({}),
    usage_unit: 'DBU',
    usage_quantity: quantity,
    usage_metadata: json({
      cluster_id: null,
      job_id: run.jobId === undefined ? null : String(run.jobId),
      job_run_id: String(run.runId),
      run_name: run.runName,
      job_name: run.runName,
    }),
    identity_metadata: json({ run_as: workspaceUser.userName, owned_by: null, created_by: null }),
    record_type: type,
    ingestion_date: day(visibleAt),
    billing_origin_product: 'JOBS',
    product_features: json({
      jobs_tier: null,
      is_serverless: true,
      is_photon: false,
      performance_target: run.performanceTarget,
    }),
    usage_type: 'COMPUTE_TIME',
    _visible_at: visibleAt,
  });
  const rows = [];
  for (const [hour, dbus] of [...perHour.entries()].sort((a, b) => a[0] - b[0])) {
    const published = hour + hourMs + options.billingLagMs;
    const firstShare = 0.4 + random.next() * 0.3;
    for (const [part, share] of [firstShare, 1 - firstShare].entries()) {
      const quantity = dbus * share;
      if (random.next() < options.restatementRate) {
        const wrong = quantity * (1.05 + random.next() * 0.2);
        const corrected = published + options.restatementDelayMs;
        rows.push(record(hour, part, wrong, 'ORIGINAL', published));
        rows.push(record(hour, part, -wrong, 'RETRACTION', corrected));
        rows.push(record(hour, part, quantity, 'RESTATEMENT', corrected));
      } else rows.push(record(hour, part, quantity, 'ORIGINAL', published));
    }
  }
  return rows;
}
