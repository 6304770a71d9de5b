import { ValidationError } from '@setpoint/foundation/errors';
import { z } from 'zod';
import { normalizeInstanceType } from '../names.js';
import {
  catalogLayer,
  type DbuPriceEntry,
  type DbuSku,
  type DiskTierEntry,
  type InstancePriceEntry,
  type Plan,
  type SpotPriceEntry,
} from '../schema.js';
import type { ImportResult } from './aws-offer.js';
import { type AzureRetailItem, type AzureRetailPage, azureRetailPageSchema } from './schema.js';

/** Provisioned size of each managed-disk tier number (P10, E10 and S10 are all 128 GiB). */
const diskTierSizeGib: Record<string, number> = {
  '1': 4,
  '2': 8,
  '3': 16,
  '4': 32,
  '6': 64,
  '10': 128,
  '15': 256,
  '20': 512,
  '30': 1024,
  '40': 2048,
  '50': 4096,
  '60': 8192,
  '70': 16384,
  '80': 32767,
};

const diskProducts: Record<string, string> = {
  'Premium SSD Managed Disks': 'premium-ssd',
  'Standard SSD Managed Disks': 'standard-ssd',
  'Standard HDD Managed Disks': 'standard-hdd',
};

/** `Premium Jobs Compute Photon` → premium / jobs-photon; serverless, SQL and DLT SKUs are not cluster compute. */
export function databricksSkuOf(skuName: string): { plan: Plan; sku: DbuSku } | undefined {
  const match = skuName.match(/^(Standard|Premium|Enterprise)\s+(.*)$/i);
  if (!match) return undefined;
  const plan = (match[1] ?? '').toLowerCase() as Plan;
  const rest = (match[2] ?? '').toLowerCase();
  if (/serverless|sql|dlt|delta live|model|vector/.test(rest)) return undefined;
  const photon = rest.includes('photon');
  if (rest.includes('jobs light')) return photon ? undefined : { plan, sku: 'jobs-light' };
  if (rest.includes('jobs')) return { plan, sku: photon ? 'jobs-photon' : 'jobs' };
  if (rest.includes('all-purpose') || rest.includes('all purpose')) {
    return { plan, sku: photon ? 'all-purpose-photon' : 'all-purpose' };
  }
  return undefined;
}

function setNewest<T extends { effectiveDate: string }>(map: Map<string, T>, key: string, entry: T): void {
  const current = map.get(key);
  if (!current || entry.effectiveDate >= current.effectiveDate) map.set(key, entry);
}

export function parseAzureRetailPages(raw: unknown): AzureRetailPage[] {
  const pages = Array.isArray(raw) ? raw : [raw];
  return pages.map((page, index) => {
    const parsed = azureRetailPageSchema.safeParse(page);
    if (!parsed.success) {
      throw new ValidationError(
        'INVALID_AZURE_RETAIL',
        `page ${index + 1} is not an Azure Retail Prices API response: ${z.prettifyError(parsed.error).replaceAll('\n', '; ')}`,
      );
    }
    return parsed.data;
  });
}

/**
 * Reads Azure Retail Prices API pages: Linux pay-as-you-go VM prices (and spot prices), Azure Databricks
 * $/DBU by plan and SKU, and managed-disk tier prices. Items in other currencies, Windows, reservations
 * and low-priority meters are skipped.
 */
export function importAzureRetail(pages: readonly AzureRetailPage[], source: string): ImportResult {
  const items = pages.flatMap((page) => page.Items);
  const prices = new Map<string, InstancePriceEntry>();
  const spot = new Map<string, SpotPriceEntry>();
  const dbuPrices = new Map<string, DbuPriceEntry>();
  const disks = new Map<string, DiskTierEntry>();
  const sourceNote = `Azure Retail Prices API (${source})`;
  let latest = '';

  const consume = (item: AzureRetailItem): void => {
    if (item.currencyCode !== 'USD' || item.type !== 'Consumption') return;
    const effectiveDate = item.effectiveStartDate.slice(0, 10);
    const region = item.armRegionName;
    const common = { effectiveDate, source: sourceNote };
    if (effectiveDate > latest) latest = effectiveDate;

    if (item.serviceName === 'Virtual Machines') {
      if (/windows/i.test(item.productName) || /low priority/i.test(item.skuName) || !item.armSkuName) return;
      if (item.unitOfMeasure !== '1 Hour') return;
      const instanceType = normalizeInstanceType('azure', item.armSkuName);
      const key = `${region}|${instanceType}`;
      if (/spot/i.test(item.skuName)) {
        setNewest(spot, key, {
          cloud: 'azure',
          region,
          instanceType,
          usdPerHour: item.retailPrice,
          ...common,
        });
      } else {
        setNewest(prices, key, {
          cloud: 'azure',
          region,
          instanceType,
          usdPerHour: item.retailPrice,
          basis: 'list',
          ...common,
        });
      }
      return;
    }
    if (item.serviceName === 'Azure Databricks') {
      const parsed = databricksSkuOf(item.skuName);
      if (!parsed || item.unitOfMeasure !== '1 Hour') return;
      setNewest(dbuPrices, `${region}|${parsed.plan}|${parsed.sku}`, {
        cloud: 'azure',
        region,
        plan: parsed.plan,
        sku: parsed.sku,
        usdPerDbu: item.retailPrice,
        ...common,
      });
      return;
    }
    const volumeType = diskProducts[item.productName];
    const tier = item.meterName.match(/^([PES])(\d+) LRS Disk$/);
    if (volumeType && tier && item.unitOfMeasure === '1/Month') {
      const sizeGib = diskTierSizeGib[tier[2] ?? ''];
      if (sizeGib === undefined) return;
      const tierName = `${tier[1]}${tier[2]}`;
      setNewest(disks, `${region}|${volumeType}|${tierName}`, {
        cloud: 'azure',
        region,
        volumeType,
        tier: tierName,
        sizeGib,
        usdPerMonth: item.retailPrice,
        ...common,
      });
    }
  };
  for (const item of items) consume(item);

  const layer = catalogLayer(
    { name: `azure-retail ${latest || 'undated'}`, importedAt: new Date().toISOString() },
    {
      instancePrices: [...prices.values()],
      spotPrices: [...spot.values()],
      diskTiers: [...disks.values()],
      dbuPrices: [...dbuPrices.values()],
    },
  );
  return {
    layer,
    summary: `${layer.instancePrices.length} VM prices, ${layer.spotPrices.length} spot prices, ${layer.dbuPrices.length} $/DBU prices, ${layer.diskTiers.length} disk tiers from ${items.length} items`,
  };
}
