import { ValidationError } from '@setpoint/foundation/errors';
import { z } from 'zod';
import { cloudOfNodeType, normalizeInstanceType } from '../names.js';
import {
  type Cloud,
  catalogLayer,
  type DbuPriceEntry,
  type DbuRateEntry,
  type DbuSku,
  type Plan,
} from '../schema.js';
import type { ImportResult } from './aws-offer.js';
import { type DatabricksCalculatorRow, databricksCalculatorSchema } from './schema.js';

const skuByCompute: Record<string, DbuSku> = {
  'jobs compute': 'jobs',
  'jobs compute photon': 'jobs-photon',
  'jobs light compute': 'jobs-light',
  'all-purpose compute': 'all-purpose',
  'all-purpose compute photon': 'all-purpose-photon',
};

const plans = new Set<Plan>(['standard', 'premium', 'enterprise']);

export function parseDatabricksCalculator(raw: unknown): DatabricksCalculatorRow[] {
  const parsed = databricksCalculatorSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ValidationError(
      'INVALID_DATABRICKS_PRICING',
      `not a Databricks pricing-calculator JSON array: ${z.prettifyError(parsed.error).replaceAll('\n', '; ')}`,
    );
  }
  return parsed.data;
}

/** The most frequent value, so a few odd rows cannot skew a plan's $/DBU. */
function mode(values: readonly number[]): number {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? 0;
}

/**
 * Reads the Databricks pricing-calculator JSON: per-node DBU/h (standard from the non-Photon rows, Photon
 * from the `… Photon` rows, whose instance names carry a ` (Photon)` suffix) and $/DBU per plan × SKU
 * (hourrate ÷ dburate). The cloud is given, or inferred from the node type names.
 */
export function importDatabricksCalculator(
  rows: readonly DatabricksCalculatorRow[],
  options: { source: string; effectiveDate: string; cloud?: Cloud },
): ImportResult {
  const common = {
    effectiveDate: options.effectiveDate,
    source: `Databricks pricing calculator (${options.source})`,
  };
  const rates = new Map<string, DbuRateEntry>();
  const ratios = new Map<
    string,
    { cloud: Cloud; region: string; plan: Plan; sku: DbuSku; values: number[] }
  >();
  let used = 0;
  for (const row of rows) {
    const sku = skuByCompute[row.compute.trim().toLowerCase()];
    const plan = row.plan.trim().toLowerCase() as Plan;
    if (!sku || !plans.has(plan) || !(row.dburate > 0)) continue;
    const cloud = options.cloud ?? cloudOfNodeType(row.instance);
    const nodeType = normalizeInstanceType(cloud, row.instance);
    const key = `${cloud}|${nodeType}`;
    const entry = rates.get(key) ?? { cloud, nodeType, ...common };
    if (sku.endsWith('-photon')) {
      // Jobs rows first: the per-node rate is the same across SKUs, but Jobs is what Setpoint prices most.
      if (entry.photonDbuPerHour === undefined || sku === 'jobs-photon') entry.photonDbuPerHour = row.dburate;
    } else if (sku !== 'jobs-light' && (entry.dbuPerHour === undefined || sku === 'jobs')) {
      entry.dbuPerHour = row.dburate;
    }
    rates.set(key, entry);
    const region = row.region?.trim() || '*';
    const ratioKey = `${cloud}|${region}|${plan}|${sku}`;
    const ratio = ratios.get(ratioKey) ?? { cloud, region, plan, sku, values: [] };
    ratio.values.push(Math.round((row.hourrate / row.dburate) * 1e6) / 1e6);
    ratios.set(ratioKey, ratio);
    used += 1;
  }
  if (used === 0) {
    throw new ValidationError(
      'INVALID_DATABRICKS_PRICING',
      'no Jobs/All-Purpose compute rows with a DBU rate found',
    );
  }
  const dbuPrices: DbuPriceEntry[] = [...ratios.values()].map(({ values, ...rest }) => ({
    ...rest,
    usdPerDbu: mode(values),
    ...common,
  }));
  const layer = catalogLayer(
    { name: `databricks-calculator ${options.effectiveDate}`, importedAt: new Date().toISOString() },
    { dbuRates: [...rates.values()], dbuPrices },
  );
  return {
    layer,
    summary: `${layer.dbuRates.length} node DBU rates, ${dbuPrices.length} $/DBU prices from ${used} rows`,
  };
}
