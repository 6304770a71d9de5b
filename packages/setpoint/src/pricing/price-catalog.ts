import { NotFoundError, ValidationError } from '@setpoint/foundation/errors';
import { defaultPhotonDbuMultiplier } from './catalog/databricks-dbu-prices.js';
import { lookupKey, normalizeInstanceType } from './names.js';
import { noOrganizationPricing, type OrganizationPricing } from './overrides.js';
import {
  anyRegion,
  type CatalogLayer,
  type Cloud,
  type DbuSku,
  type InstanceTypeEntry,
  type Plan,
  type PriceBasis,
} from './schema.js';

/** A volume attached to each node: `count` disks of `sizeGb`, with gp3 IOPS/throughput when provisioned. */
export interface VolumeSpec {
  type: string;
  sizeGb: number;
  count: number;
  iops?: number;
  throughputMibps?: number;
}

export interface ResolvedPrice {
  usdPerHour: number;
  /** The catalog's list price before a custom price replaced it. */
  listUsdPerHour: number;
  basis: PriceBasis;
  source: string;
  effectiveDate: string;
  /** Which custom price replaced the list price, when one did. */
  adjustment?: string;
}

/** Spot $/h: observed (imported history) or modelled from the on-demand price (`simulated`). */
export interface SpotPriceRange {
  low: number;
  expected: number;
  high: number;
  simulated: boolean;
  source: string;
}

export interface ResolvedVolumePrice {
  usdPerMonth: number;
  detail: string;
  source: string;
}

export interface ResolvedDbuRate {
  dbuPerHour: number;
  source: string;
}

export interface ResolvedDbuPrice {
  usdPerDbu: number;
  listUsdPerDbu: number;
  source: string;
  adjustment?: string;
}

/**
 * What Setpoint believes prices are: the shipped catalog, overlaid by imports (newest effective date wins,
 * entry by entry), with the organization's custom prices in place of list prices. Discounts are not applied
 * here: they are organization settings, applied once to the organization summary. Every lookup either returns a price or throws
 * a NotFoundError naming the instance, the region and what is missing — never a silent zero.
 */
export interface PriceCatalog {
  readonly layerNames: readonly string[];
  instanceType(cloud: Cloud, instanceType: string): InstanceTypeEntry;
  onDemandPrice(cloud: Cloud, region: string, instanceType: string): ResolvedPrice;
  spotPrice(cloud: Cloud, region: string, instanceType: string): SpotPriceRange;
  volumePrice(cloud: Cloud, region: string, volume: VolumeSpec): ResolvedVolumePrice;
  emrFee(region: string, instanceType: string): ResolvedPrice;
  dbuRate(cloud: Cloud, nodeType: string, photon: boolean): ResolvedDbuRate;
  dbuPrice(cloud: Cloud, region: string, plan: Plan, sku: DbuSku): ResolvedDbuPrice;
  /** Regions with an on-demand price for this instance type. */
  pricedRegions(cloud: Cloud, instanceType: string): string[];
}

interface Dated {
  effectiveDate: string;
}

/** Keeps, per key, the entry with the latest effective date; on a tie the later layer wins. */
function indexNewest<T extends Dated>(entries: Iterable<T>, keyOf: (entry: T) => string): Map<string, T> {
  const index = new Map<string, T>();
  for (const entry of entries) {
    const key = keyOf(entry);
    const current = index.get(key);
    if (!current || entry.effectiveDate >= current.effectiveDate) index.set(key, entry);
  }
  return index;
}

const hoursPerMonth = 730;
const importHint: Record<Cloud, string> = {
  aws: 'import current prices with `setpoint pricing import --aws-offer <file|url>`',
  azure: 'import current prices with `setpoint pricing import --azure-retail <file|url>`',
};

function missing(what: string, hint: string, details: Record<string, unknown>): NotFoundError {
  return new NotFoundError('PRICE_MISSING', `${what}; ${hint}`, { details });
}

export function createPriceCatalog(
  layers: readonly CatalogLayer[],
  overrides: OrganizationPricing = noOrganizationPricing,
): PriceCatalog {
  const all = <K extends keyof CatalogLayer>(field: K): CatalogLayer[K] =>
    layers.flatMap((layer) => layer[field] as unknown[]) as CatalogLayer[K];

  const instanceTypes = indexNewest(all('instanceTypes'), (e) => lookupKey(e.cloud, e.instanceType));
  const instancePrices = indexNewest(all('instancePrices'), (e) =>
    lookupKey(e.cloud, e.region, e.instanceType),
  );
  const spotPrices = indexNewest(all('spotPrices'), (e) => lookupKey(e.cloud, e.region, e.instanceType));
  const spotModels = indexNewest(all('spotModels'), (e) => lookupKey(e.cloud, e.family));
  const volumePrices = indexNewest(all('volumePrices'), (e) => lookupKey(e.cloud, e.region, e.volumeType));
  const diskTiers = indexNewest(all('diskTiers'), (e) => lookupKey(e.cloud, e.region, e.volumeType, e.tier));
  const emrFees = indexNewest(all('emrFees'), (e) => lookupKey(e.region, e.instanceType));
  // Standard and Photon DBU rates may come from different sources: resolve each field on its own.
  const dbuRates = indexNewest(
    all('dbuRates').filter((e) => e.dbuPerHour !== undefined),
    (e) => lookupKey(e.cloud, e.nodeType),
  );
  const photonDbuRates = indexNewest(
    all('dbuRates').filter((e) => e.photonDbuPerHour !== undefined),
    (e) => lookupKey(e.cloud, e.nodeType),
  );
  const dbuPrices = indexNewest(all('dbuPrices'), (e) => lookupKey(e.cloud, e.region, e.plan, e.sku));
  const customInstancePrices = new Map(
    overrides.customInstancePrices.map((custom) => [
      lookupKey(
        custom.cloud,
        custom.region ?? anyRegion,
        normalizeInstanceType(custom.cloud, custom.instanceType),
      ),
      custom.usdPerHour,
    ]),
  );
  const photonMultiplier = overrides.photonDbuMultiplier ?? defaultPhotonDbuMultiplier;

  const pricedRegions = (cloud: Cloud, name: string): string[] => {
    const normalized = normalizeInstanceType(cloud, name).toLowerCase();
    return [...instancePrices.values()]
      .filter((e) => e.cloud === cloud && e.instanceType.toLowerCase() === normalized)
      .map((e) => e.region)
      .sort();
  };

  const instanceType = (cloud: Cloud, name: string): InstanceTypeEntry => {
    const normalized = normalizeInstanceType(cloud, name);
    const entry = instanceTypes.get(lookupKey(cloud, normalized));
    if (!entry) {
      throw missing(
        `unknown ${cloud} instance type ${normalized}: the price catalog has no specs for it`,
        importHint[cloud],
        { cloud, instanceType: normalized, missing: 'instance specs' },
      );
    }
    return entry;
  };

  const onDemandPrice = (cloud: Cloud, region: string, name: string): ResolvedPrice => {
    const normalized = normalizeInstanceType(cloud, name);
    const entry = instancePrices.get(lookupKey(cloud, region, normalized));
    const custom =
      customInstancePrices.get(lookupKey(cloud, region, normalized)) ??
      customInstancePrices.get(lookupKey(cloud, anyRegion, normalized));
    if (custom !== undefined) {
      return {
        usdPerHour: custom,
        listUsdPerHour: entry?.usdPerHour ?? custom,
        basis: 'list',
        source: 'organization override: custom instance price',
        effectiveDate: entry?.effectiveDate ?? '',
        adjustment: 'custom instance price',
      };
    }
    if (!entry) {
      const known = pricedRegions(cloud, normalized);
      const where =
        known.length > 0 ? `it is priced only in ${known.join(', ')}` : 'it has no price in any region';
      throw missing(
        `no on-demand price for ${cloud} instance type ${normalized} in region ${region} (${where})`,
        importHint[cloud],
        { cloud, region, instanceType: normalized, missing: 'on-demand price' },
      );
    }
    return {
      usdPerHour: entry.usdPerHour,
      listUsdPerHour: entry.usdPerHour,
      basis: entry.basis,
      source: entry.source,
      effectiveDate: entry.effectiveDate,
    };
  };

  const spotPrice = (cloud: Cloud, region: string, name: string): SpotPriceRange => {
    const normalized = normalizeInstanceType(cloud, name);
    const observed = spotPrices.get(lookupKey(cloud, region, normalized));
    if (observed) {
      return {
        low: observed.minUsdPerHour ?? observed.usdPerHour,
        expected: observed.usdPerHour,
        high: observed.maxUsdPerHour ?? observed.usdPerHour,
        simulated: false,
        source: observed.source,
      };
    }
    const onDemand = onDemandPrice(cloud, region, normalized);
    const family = instanceTypes.get(lookupKey(cloud, normalized))?.family ?? '';
    const model = spotModels.get(lookupKey(cloud, family)) ?? spotModels.get(lookupKey(cloud, '*'));
    if (!model) {
      throw missing(
        `no spot price or spot discount model for ${cloud} instance type ${normalized} in region ${region}`,
        importHint[cloud],
        {
          cloud,
          region,
          instanceType: normalized,
          missing: 'spot price',
        },
      );
    }
    const base = onDemand.usdPerHour;
    return {
      low: base * (1 - model.savingsHigh),
      expected: base * (1 - model.savingsExpected),
      high: base * (1 - model.savingsLow),
      simulated: true,
      source: model.source,
    };
  };

  const volumePrice = (cloud: Cloud, region: string, volume: VolumeSpec): ResolvedVolumePrice => {
    const perGb = volumePrices.get(lookupKey(cloud, region, volume.type));
    if (perGb) {
      const extraIops = Math.max(0, (volume.iops ?? 0) - (perGb.includedIops ?? 0));
      const extraMibps = Math.max(0, (volume.throughputMibps ?? 0) - (perGb.includedMibps ?? 0));
      const perDisk =
        volume.sizeGb * perGb.usdPerGbMonth +
        extraIops * (perGb.usdPerIopsMonth ?? 0) +
        extraMibps * (perGb.usdPerMibpsMonth ?? 0);
      return {
        usdPerMonth: perDisk * volume.count,
        detail: `${volume.count} × ${volume.sizeGb} GB ${volume.type} at $${perGb.usdPerGbMonth}/GB-month`,
        source: perGb.source,
      };
    }
    const tier = [...diskTiers.values()]
      .filter((e) => e.cloud === cloud && e.region === region && e.volumeType === volume.type)
      .filter((e) => e.sizeGib >= volume.sizeGb)
      .sort((a, b) => a.sizeGib - b.sizeGib)[0];
    if (!tier) {
      throw missing(
        `no ${volume.type} disk price for a ${volume.sizeGb} GB volume on ${cloud} in region ${region}`,
        importHint[cloud],
        { cloud, region, volumeType: volume.type, sizeGb: volume.sizeGb, missing: 'volume price' },
      );
    }
    return {
      usdPerMonth: tier.usdPerMonth * volume.count,
      detail: `${volume.count} × ${tier.tier} (${tier.sizeGib} GiB) ${volume.type} at $${tier.usdPerMonth}/month`,
      source: tier.source,
    };
  };

  const emrFee = (region: string, name: string): ResolvedPrice => {
    const normalized = normalizeInstanceType('aws', name);
    const entry = emrFees.get(lookupKey(region, normalized)) ?? emrFees.get(lookupKey(anyRegion, normalized));
    if (!entry) {
      throw missing(`no EMR fee for instance type ${normalized} in region ${region}`, importHint.aws, {
        region,
        instanceType: normalized,
        missing: 'EMR fee',
      });
    }
    return {
      usdPerHour: entry.usdPerHour,
      listUsdPerHour: entry.usdPerHour,
      basis: entry.basis,
      source: entry.source,
      effectiveDate: entry.effectiveDate,
    };
  };

  const dbuRate = (cloud: Cloud, name: string, photon: boolean): ResolvedDbuRate => {
    const normalized = normalizeInstanceType(cloud, name);
    const key = lookupKey(cloud, normalized);
    const photonEntry = photon ? photonDbuRates.get(key) : undefined;
    if (photonEntry?.photonDbuPerHour !== undefined) {
      return { dbuPerHour: photonEntry.photonDbuPerHour, source: photonEntry.source };
    }
    const entry = dbuRates.get(key);
    if (entry?.dbuPerHour === undefined) {
      throw missing(
        `no Databricks DBU rate for ${cloud} node type ${normalized}${photon ? ' (Photon)' : ''}`,
        'import the Databricks pricing calculator with `setpoint pricing import --databricks <file|url>`',
        { cloud, nodeType: normalized, missing: 'DBU rate' },
      );
    }
    if (!photon) return { dbuPerHour: entry.dbuPerHour, source: entry.source };
    return {
      dbuPerHour: entry.dbuPerHour * photonMultiplier,
      source: `${entry.source} × Photon multiplier ${photonMultiplier}`,
    };
  };

  const dbuPrice = (cloud: Cloud, region: string, plan: Plan, sku: DbuSku): ResolvedDbuPrice => {
    const entry =
      dbuPrices.get(lookupKey(cloud, region, plan, sku)) ??
      dbuPrices.get(lookupKey(cloud, anyRegion, plan, sku));
    // The most specific matching custom price wins (plan and SKU over plan or SKU over cloud-wide).
    const specificity = (c: { plan?: Plan; sku?: DbuSku }): number => (c.plan ? 2 : 0) + (c.sku ? 1 : 0);
    const custom = overrides.customDbuPrices
      .filter(
        (c) =>
          c.cloud === cloud &&
          (c.plan === undefined || c.plan === plan) &&
          (c.sku === undefined || c.sku === sku),
      )
      .sort((a, b) => specificity(b) - specificity(a))[0];
    if (custom) {
      return {
        usdPerDbu: custom.usdPerDbu,
        listUsdPerDbu: entry?.usdPerDbu ?? custom.usdPerDbu,
        source: 'organization override: custom $/DBU',
        adjustment: 'custom $/DBU',
      };
    }
    if (!entry) {
      throw missing(
        `no $/DBU price for ${cloud} plan ${plan}, SKU ${sku} in region ${region}`,
        cloud === 'azure' && plan === 'enterprise'
          ? 'Azure Databricks has no Enterprise plan'
          : 'import the Databricks pricing calculator with `setpoint pricing import --databricks <file|url>`',
        { cloud, region, plan, sku, missing: '$/DBU' },
      );
    }
    return { usdPerDbu: entry.usdPerDbu, listUsdPerDbu: entry.usdPerDbu, source: entry.source };
  };

  return {
    layerNames: layers.map((layer) => layer.name),
    instanceType,
    onDemandPrice,
    spotPrice,
    volumePrice,
    emrFee,
    dbuRate,
    dbuPrice,
    pricedRegions,
  };
}

/** $/h of a volume price. */
export function volumeUsdPerHour(price: ResolvedVolumePrice): number {
  return price.usdPerMonth / hoursPerMonth;
}

export function assertPositiveVolume(volume: VolumeSpec): void {
  if (!(volume.sizeGb > 0) || !Number.isInteger(volume.count) || volume.count < 1) {
    throw new ValidationError(
      'INVALID_VOLUME',
      `invalid volume ${volume.type}:${volume.sizeGb}x${volume.count}`,
    );
  }
}
