import { createRandom, deriveSeed } from '@setpoint/foundation/random';
import type { RunRecord } from '../emulator-state.js';
import { workspaceUser } from '../workspace-user.js';
import {
  addUsageByHour,
  billingUsageRow,
  hourMs,
  hoursInOrder,
  publishedRecords,
  type Restatements,
} from './billing-usage.js';
import { stableId } from './record-values.js';

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
  restatements: Restatements;
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
    addUsageByHour(perHour, task.execStartMs, task.execEndMs, dbuPerMs);
  }
  const rows = [];
  for (const [hour, dbus] of hoursInOrder(perHour)) {
    const published = hour + hourMs + options.billingLagMs;
    const firstShare = 0.4 + random.next() * 0.3;
    for (const [part, share] of [firstShare, 1 - firstShare].entries())
      for (const record of publishedRecords(dbus * share, published, random, options.restatements))
        rows.push(
          billingUsageRow({
            recordId: stableId(options.workspaceId, run.runId, hour, part, record.recordType),
            accountId: options.accountId,
            workspaceId: options.workspaceId,
            sku,
            cloud,
            hourMs: hour,
            dbus: record.quantity,
            customTags: {},
            usage: {
              cluster_id: null,
              job_id: run.jobId === undefined ? null : String(run.jobId),
              job_run_id: String(run.runId),
              run_name: run.runName,
              job_name: run.runName,
            },
            identity: { run_as: workspaceUser.userName, owned_by: null },
            recordType: record.recordType,
            product: 'JOBS',
            features: {
              jobs_tier: null,
              is_serverless: true,
              is_photon: false,
              performance_target: run.performanceTarget,
            },
            visibleAtMs: record.visibleAtMs,
          }),
        );
  }
  return rows;
}
