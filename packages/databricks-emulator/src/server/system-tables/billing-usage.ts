import type { Random } from '@setpoint/foundation/random';
import { day, iso, json } from './record-values.js';

export const hourMs = 3_600_000;

/** Adds usage at `perMs` from `fromMs` to `toMs` to the clock hours it falls in (keys: each hour's start). */
export function addUsageByHour(
  perHour: Map<number, number>,
  fromMs: number,
  toMs: number,
  perMs: number,
): void {
  for (let hour = Math.floor(fromMs / hourMs) * hourMs; hour < toMs; hour += hourMs) {
    const overlap = Math.min(toMs, hour + hourMs) - Math.max(fromMs, hour);
    if (overlap > 0) perHour.set(hour, (perHour.get(hour) ?? 0) + overlap * perMs);
  }
}

/** The hours of a usage map, earliest first. */
export function hoursInOrder(perHour: Map<number, number>): Array<[hour: number, quantity: number]> {
  return [...perHour.entries()].sort((a, b) => a[0] - b[0]);
}

export type UsageRecordType = 'ORIGINAL' | 'RETRACTION' | 'RESTATEMENT';

export interface Restatements {
  /** Share of records first published wrong and later retracted and restated. */
  rate: number;
  /** How long after the original a wrong record is retracted and restated. */
  delayMs: number;
}

/**
 * How Databricks publishes a quantity of usage: one `ORIGINAL` record when it is published, or, for a
 * share of records, a wrong original (5–25 % high) that is later retracted (the negated quantity) and
 * restated (the right one). Draws from `random` only to decide and, when restated, how wrong.
 */
export function publishedRecords(
  quantity: number,
  publishedMs: number,
  random: Random,
  restatements: Restatements,
): Array<{ quantity: number; recordType: UsageRecordType; visibleAtMs: number }> {
  if (random.next() >= restatements.rate)
    return [{ quantity, recordType: 'ORIGINAL', visibleAtMs: publishedMs }];
  const wrong = quantity * (1.05 + random.next() * 0.2);
  const corrected = publishedMs + restatements.delayMs;
  return [
    { quantity: wrong, recordType: 'ORIGINAL', visibleAtMs: publishedMs },
    { quantity: -wrong, recordType: 'RETRACTION', visibleAtMs: corrected },
    { quantity, recordType: 'RESTATEMENT', visibleAtMs: corrected },
  ];
}

/** The fields of `usage_metadata` the emulated workspace fills, in the struct's order of the JSON it writes. */
export interface UsageMetadata {
  cluster_id: string | null;
  job_id: string | null;
  job_run_id: string | null;
  /** Classic compute names these (null); serverless records leave them out. */
  warehouse_id?: null;
  instance_pool_id?: null;
  node_type?: string | null;
  run_name: string | null;
  job_name: string | null;
}

export interface ProductFeatures {
  jobs_tier: 'CLASSIC' | null;
  is_serverless: boolean;
  is_photon: boolean;
  /** A serverless run's performance mode. */
  performance_target?: string;
}

export interface UsageRecord {
  recordId: string;
  accountId: string;
  workspaceId: string;
  sku: string;
  cloud: 'AWS' | 'AZURE';
  /** The start of the clock hour the usage falls in. */
  hourMs: number;
  dbus: number;
  /** The cluster's `custom_tags` (a map of strings). */
  customTags: object;
  usage: UsageMetadata;
  identity: { run_as: string | null; owned_by: string | null };
  recordType: UsageRecordType;
  product: 'JOBS' | 'ALL_PURPOSE';
  features: ProductFeatures;
  /** When the record becomes visible in the table (and its ingestion date). */
  visibleAtMs: number;
}

/** One `system.billing.usage` row: an hour of DBUs under a SKU, as the table spells its columns. */
export function billingUsageRow(record: UsageRecord) {
  const { usage, features } = record;
  return {
    record_id: record.recordId,
    account_id: record.accountId,
    workspace_id: record.workspaceId,
    sku_name: record.sku,
    cloud: record.cloud,
    usage_start_time: iso(record.hourMs),
    usage_end_time: iso(record.hourMs + hourMs),
    usage_date: day(record.hourMs),
    custom_tags: json(record.customTags),
    usage_unit: 'DBU',
    usage_quantity: record.dbus,
    usage_metadata: json({
      cluster_id: usage.cluster_id,
      job_id: usage.job_id,
      job_run_id: usage.job_run_id,
      warehouse_id: usage.warehouse_id,
      instance_pool_id: usage.instance_pool_id,
      node_type: usage.node_type,
      run_name: usage.run_name,
      job_name: usage.job_name,
    }),
    identity_metadata: json({ ...record.identity, created_by: null }),
    record_type: record.recordType,
    ingestion_date: day(record.visibleAtMs),
    billing_origin_product: record.product,
    product_features: json({
      jobs_tier: features.jobs_tier,
      is_serverless: features.is_serverless,
      is_photon: features.is_photon,
      performance_target: features.performance_target,
    }),
    usage_type: 'COMPUTE_TIME',
    _visible_at: record.visibleAtMs,
  };
}
