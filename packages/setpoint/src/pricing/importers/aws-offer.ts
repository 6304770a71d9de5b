import { ValidationError } from '@setpoint/foundation/errors';
import { z } from 'zod';
import { gp3IncludedIops, gp3IncludedMibps } from '../catalog/aws-storage.js';
import {
  type CatalogLayer,
  catalogLayer,
  type EmrFeeEntry,
  type InstancePriceEntry,
  type InstanceTypeEntry,
  type VolumePriceEntry,
} from '../schema.js';
import { createJsonValueScanner } from './json-value-scanner.js';
import { type AwsOffer, awsOfferSchema } from './schema.js';

/** Region codes for offer files that carry only the location name (older files have no `regionCode`). */
const regionByLocation: Record<string, string> = {
  'US East (N. Virginia)': 'us-east-1',
  'US East (Ohio)': 'us-east-2',
  'US West (N. California)': 'us-west-1',
  'US West (Oregon)': 'us-west-2',
  'EU (Ireland)': 'eu-west-1',
  'Europe (Ireland)': 'eu-west-1',
  'EU (London)': 'eu-west-2',
  'Europe (London)': 'eu-west-2',
  'EU (Frankfurt)': 'eu-central-1',
  'Europe (Frankfurt)': 'eu-central-1',
  'Asia Pacific (Mumbai)': 'ap-south-1',
  'Asia Pacific (Singapore)': 'ap-southeast-1',
  'Asia Pacific (Sydney)': 'ap-southeast-2',
  'Asia Pacific (Tokyo)': 'ap-northeast-1',
  'Canada (Central)': 'ca-central-1',
};

export interface ImportResult {
  layer: CatalogLayer;
  summary: string;
}

function regionOf(attributes: Record<string, string>): string | undefined {
  return attributes.regionCode ?? (attributes.location ? regionByLocation[attributes.location] : undefined);
}

function isoDay(timestamp: string): string {
  const day = timestamp.slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day))
    throw new ValidationError('INVALID_OFFER', `not a date: ${timestamp}`);
  return day;
}

/** The USD price of a SKU's on-demand term in the given unit (the first matching price dimension). */
function onDemandUsd(offer: AwsOffer, sku: string, units: readonly string[]): number | undefined {
  for (const term of Object.values(offer.terms.OnDemand?.[sku] ?? {})) {
    for (const dimension of Object.values(term.priceDimensions)) {
      const usd = dimension.pricePerUnit.USD;
      if (usd !== undefined && units.includes(dimension.unit)) return Number(usd);
    }
  }
  return undefined;
}

/** Keeps the smallest non-zero price when several products match one key, so imports are deterministic. */
function keepCheapest<T extends { usdPerHour: number }>(map: Map<string, T>, key: string, entry: T): void {
  const current = map.get(key);
  if (entry.usdPerHour > 0 && (!current || entry.usdPerHour < current.usdPerHour)) map.set(key, entry);
}

function localNvmeGb(storage: string | undefined): number {
  const match = storage?.match(/(\d+)\s*x\s*([\d,]+)\s*(GB)?\s*NVMe/i);
  if (!match) return 0;
  return Number(match[1]) * Number((match[2] ?? '0').replaceAll(',', ''));
}

/** Linux, shared tenancy, no pre-installed software, used capacity: what Databricks and EMR nodes run as. */
function isLinuxSharedOnDemand(attributes: Readonly<Record<string, unknown>>): boolean {
  return (
    attributes.operatingSystem === 'Linux' &&
    attributes.tenancy === 'Shared' &&
    (attributes.preInstalledSw ?? 'NA') === 'NA' &&
    (attributes.capacitystatus ?? 'Used') === 'Used' &&
    (attributes.licenseModel ?? 'No License required') === 'No License required'
  );
}

const volumeFamilies = new Set(['Storage', 'System Operation', 'Provisioned Throughput']);

/** Whether an offer product can contribute to the catalog (most of an EC2 offer cannot). */
function isRelevantProduct(product: unknown): boolean {
  if (typeof product !== 'object' || product === null) return false;
  const { productFamily, attributes } = product as { productFamily?: unknown; attributes?: unknown };
  if (typeof attributes !== 'object' || attributes === null) return false;
  const fields = attributes as Record<string, unknown>;
  if (fields.softwareType === 'EMR') return true;
  const family = typeof productFamily === 'string' ? productFamily : '';
  if (family.startsWith('Compute Instance')) return isLinuxSharedOnDemand(fields);
  return volumeFamilies.has(family) && typeof fields.volumeApiName === 'string';
}

/**
 * Streams an offer file (EC2 region files exceed the largest string V8 can hold), keeping only the
 * products the catalog can use and their on-demand terms, then imports that reduced offer.
 */
export async function importAwsOfferStream(
  chunks: AsyncIterable<string>,
  source: string,
): Promise<ImportResult> {
  const header: Record<string, unknown> = {};
  const products: Record<string, unknown> = {};
  const onDemand: Record<string, unknown> = {};
  let productsSeen = false;
  const scanner = createJsonValueScanner(
    3,
    (path) =>
      (path.length === 1 && (path[0] === 'offerCode' || path[0] === 'publicationDate')) ||
      (path.length === 2 && path[0] === 'products') ||
      (path.length === 3 && path[0] === 'terms' && path[1] === 'OnDemand'),
    (path, value) => {
      const [first = '', second = '', third = ''] = path;
      if (path.length === 1) {
        header[first] = value;
      } else if (first === 'products') {
        productsSeen = true;
        if (isRelevantProduct(value)) products[second] = value;
      } else if (!productsSeen || third in products) {
        // Terms before products (not AWS's order, but valid JSON) are kept until products can filter them.
        onDemand[third] = value;
      }
    },
  );
  for await (const chunk of chunks) scanner.write(chunk);
  scanner.end();
  for (const sku of Object.keys(onDemand)) if (!(sku in products)) delete onDemand[sku];
  return importAwsOffer({ ...header, products, terms: { OnDemand: onDemand } }, source);
}

function parseOffer(raw: unknown): AwsOffer {
  const parsed = awsOfferSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ValidationError(
      'INVALID_AWS_OFFER',
      `not an AWS Price List offer file: ${z.prettifyError(parsed.error).replaceAll('\n', '; ')}`,
    );
  }
  return parsed.data;
}

/**
 * Reads an AWS Price List bulk offer file: `AmazonEC2` (Linux, shared tenancy, no pre-installed software,
 * used capacity: instance specs and on-demand prices; EBS gp2/gp3/st1/sc1 prices) or `ElasticMapReduce`
 * (the EMR fee per instance type).
 */
export function importAwsOffer(raw: unknown, source: string): ImportResult {
  const offer = parseOffer(raw);
  const effectiveDate = isoDay(offer.publicationDate);
  const common = { effectiveDate, source: `AWS Price List ${offer.offerCode} (${source})` };
  const layer = catalogLayer({
    name: `aws-offer ${offer.offerCode} ${effectiveDate}`,
    importedAt: new Date().toISOString(),
  });

  if (offer.offerCode === 'ElasticMapReduce') {
    const fees = new Map<string, EmrFeeEntry>();
    for (const product of Object.values(offer.products)) {
      const { attributes } = product;
      const region = regionOf(attributes);
      if (attributes.softwareType !== 'EMR' || !attributes.instanceType || !region) continue;
      const usdPerHour = onDemandUsd(offer, product.sku, ['Hrs']);
      if (usdPerHour === undefined) continue;
      keepCheapest(fees, `${region}|${attributes.instanceType}`, {
        region,
        instanceType: attributes.instanceType,
        usdPerHour,
        basis: 'list',
        ...common,
      });
    }
    layer.emrFees = [...fees.values()];
    return { layer, summary: `${layer.emrFees.length} EMR fees (${effectiveDate})` };
  }

  if (offer.offerCode !== 'AmazonEC2') {
    throw new ValidationError(
      'UNSUPPORTED_OFFER',
      `offer ${offer.offerCode} is not AmazonEC2 or ElasticMapReduce`,
    );
  }
  const prices = new Map<string, InstancePriceEntry>();
  const types = new Map<string, InstanceTypeEntry>();
  const volumes = new Map<string, VolumePriceEntry>();
  const volumeEntry = (region: string, volumeType: string): VolumePriceEntry => {
    const key = `${region}|${volumeType}`;
    const existing = volumes.get(key);
    if (existing) return existing;
    const created: VolumePriceEntry = { cloud: 'aws', region, volumeType, usdPerGbMonth: 0, ...common };
    volumes.set(key, created);
    return created;
  };

  for (const product of Object.values(offer.products)) {
    const { attributes } = product;
    const region = regionOf(attributes);
    if (!region) continue;
    const family = product.productFamily ?? '';
    if (family.startsWith('Compute Instance')) {
      const instanceType = attributes.instanceType;
      if (!instanceType || !isLinuxSharedOnDemand(attributes)) continue;
      const usdPerHour = onDemandUsd(offer, product.sku, ['Hrs']);
      if (usdPerHour === undefined) continue;
      keepCheapest(prices, `${region}|${instanceType}`, {
        cloud: 'aws',
        region,
        instanceType,
        usdPerHour,
        basis: 'list',
        ...common,
      });
      const vcpus = Number(attributes.vcpu);
      const memoryGib = Number((attributes.memory ?? '').replace(/[^\d.]/g, ''));
      if (vcpus > 0 && memoryGib > 0) {
        types.set(instanceType, {
          cloud: 'aws',
          instanceType,
          family: instanceType.split('.')[0] ?? instanceType,
          vcpus,
          memoryGib,
          arch: /graviton/i.test(attributes.physicalProcessor ?? '') ? 'arm64' : 'x86_64',
          localNvmeGb: localNvmeGb(attributes.storage),
          network: attributes.networkPerformance ?? '',
          ...common,
        });
      }
      continue;
    }
    const volumeType = attributes.volumeApiName;
    if (!volumeType) continue;
    if (family === 'Storage') {
      const usd = onDemandUsd(offer, product.sku, ['GB-Mo']);
      if (usd !== undefined) volumeEntry(region, volumeType).usdPerGbMonth = usd;
    } else if (family === 'System Operation' && volumeType === 'gp3') {
      const usd = onDemandUsd(offer, product.sku, ['IOPS-Mo']);
      if (usd !== undefined)
        Object.assign(volumeEntry(region, volumeType), {
          usdPerIopsMonth: usd,
          includedIops: gp3IncludedIops,
        });
    } else if (family === 'Provisioned Throughput' && volumeType === 'gp3') {
      const perGibps = onDemandUsd(offer, product.sku, ['GiBps-mo', 'GiBps-Mo']);
      if (perGibps !== undefined) {
        Object.assign(volumeEntry(region, volumeType), {
          usdPerMibpsMonth: perGibps / 1024,
          includedMibps: gp3IncludedMibps,
        });
      }
    }
  }
  layer.instancePrices = [...prices.values()];
  layer.instanceTypes = [...types.values()];
  layer.volumePrices = [...volumes.values()].filter((entry) => entry.usdPerGbMonth > 0);
  return {
    layer,
    summary: `${layer.instancePrices.length} instance prices, ${layer.instanceTypes.length} instance types, ${layer.volumePrices.length} volume prices (${effectiveDate})`,
  };
}
