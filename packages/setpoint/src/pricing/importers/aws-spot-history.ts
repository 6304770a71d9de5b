import { ValidationError } from '@setpoint/foundation/errors';
import { z } from 'zod';
import { catalogLayer, type SpotPriceEntry } from '../schema.js';
import type { ImportResult } from './aws-offer.js';
import { awsSpotPriceHistorySchema } from './schema.js';

const linuxProducts = new Set(['Linux/UNIX', 'Linux/UNIX (Amazon VPC)']);

/**
 * Reads EC2 spot price history (one `describe-spot-price-history` response, or an array of pages): per
 * region and instance type, the mean Linux spot price over the history, with the lowest and highest seen.
 * Availability zones are folded into their region, since Databricks and EMR pick the zone.
 */
export function importAwsSpotHistory(raw: unknown, source: string): ImportResult {
  const pages = Array.isArray(raw) ? raw : [raw];
  const samples = new Map<string, { region: string; instanceType: string; prices: number[] }>();
  let latest = '';
  for (const [index, page] of pages.entries()) {
    const parsed = awsSpotPriceHistorySchema.safeParse(page);
    if (!parsed.success) {
      throw new ValidationError(
        'INVALID_SPOT_HISTORY',
        `page ${index + 1} is not a describe-spot-price-history response: ${z.prettifyError(parsed.error).replaceAll('\n', '; ')}`,
      );
    }
    for (const record of parsed.data.SpotPriceHistory) {
      if (!linuxProducts.has(record.ProductDescription)) continue;
      const region = record.AvailabilityZone.replace(/[a-z]$/, '');
      const key = `${region}|${record.InstanceType}`;
      const entry = samples.get(key) ?? { region, instanceType: record.InstanceType, prices: [] };
      entry.prices.push(Number(record.SpotPrice));
      samples.set(key, entry);
      const day = record.Timestamp.slice(0, 10);
      if (day > latest) latest = day;
    }
  }
  if (samples.size === 0) {
    throw new ValidationError('INVALID_SPOT_HISTORY', 'no Linux/UNIX spot prices in the history');
  }
  const spotPrices: SpotPriceEntry[] = [...samples.values()].map(({ region, instanceType, prices }) => ({
    cloud: 'aws',
    region,
    instanceType,
    usdPerHour: prices.reduce((sum, price) => sum + price, 0) / prices.length,
    minUsdPerHour: Math.min(...prices),
    maxUsdPerHour: Math.max(...prices),
    effectiveDate: latest,
    source: `EC2 spot price history, ${prices.length} samples (${source})`,
  }));
  const layer = catalogLayer(
    { name: `aws-spot-history ${latest}`, importedAt: new Date().toISOString() },
    { spotPrices },
  );
  return { layer, summary: `${spotPrices.length} spot prices (${latest})` };
}
