import { ValidationError } from '@setpoint/foundation/errors';
import { z } from 'zod';

/**
 * The shape of every price-catalog entry, shipped or imported. Each entry carries the date from which
 * it is valid and where it came from, so that the newest fact wins and `pricing show` can say why.
 */
export const cloudSchema = z.enum(['aws', 'azure']);
export type Cloud = z.infer<typeof cloudSchema>;

export const planSchema = z.enum(['standard', 'premium', 'enterprise']);
export type Plan = z.infer<typeof planSchema>;

export const computeTypeSchema = z.enum(['jobs', 'jobs-light', 'all-purpose']);
export type ComputeType = z.infer<typeof computeTypeSchema>;

/** Databricks billing SKU: the compute type plus whether Photon ran. Jobs Light has no Photon SKU. */
export const dbuSkuSchema = z.enum([
  'jobs',
  'jobs-photon',
  'jobs-light',
  'all-purpose',
  'all-purpose-photon',
]);
export type DbuSku = z.infer<typeof dbuSkuSchema>;

/** `list`: a published list price; `estimate`: derived by Setpoint (see the source note) until imported. */
export const priceBasisSchema = z.enum(['list', 'estimate']);
export type PriceBasis = z.infer<typeof priceBasisSchema>;

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a YYYY-MM-DD date');
const usd = z.number().nonnegative().finite();
const provenance = { effectiveDate: isoDate, source: z.string().min(1) };

/** `*` means "every region": a region-specific entry always wins over it. */
export const anyRegion = '*';

export const instanceTypeEntrySchema = z.object({
  cloud: cloudSchema,
  instanceType: z.string().min(1),
  family: z.string().min(1),
  vcpus: z.number().int().positive(),
  memoryGib: z.number().positive(),
  arch: z.enum(['x86_64', 'arm64']),
  localNvmeGb: z.number().nonnegative(),
  network: z.string(),
  ...provenance,
});
export type InstanceTypeEntry = z.infer<typeof instanceTypeEntrySchema>;

export const instancePriceEntrySchema = z.object({
  cloud: cloudSchema,
  region: z.string().min(1),
  instanceType: z.string().min(1),
  usdPerHour: usd,
  basis: priceBasisSchema,
  ...provenance,
});
export type InstancePriceEntry = z.infer<typeof instancePriceEntrySchema>;

/** Observed spot prices (imported price history): the mean and, when known, the extremes seen. */
export const spotPriceEntrySchema = z.object({
  cloud: cloudSchema,
  region: z.string().min(1),
  instanceType: z.string().min(1),
  usdPerHour: usd,
  minUsdPerHour: usd.optional(),
  maxUsdPerHour: usd.optional(),
  ...provenance,
});
export type SpotPriceEntry = z.infer<typeof spotPriceEntrySchema>;

/** Fractions of the on-demand price saved on spot when no price history is known (`*` = cloud default). */
export const spotModelEntrySchema = z.object({
  cloud: cloudSchema,
  family: z.string().min(1),
  savingsLow: z.number().min(0).max(1),
  savingsExpected: z.number().min(0).max(1),
  savingsHigh: z.number().min(0).max(1),
  ...provenance,
});
export type SpotModelEntry = z.infer<typeof spotModelEntrySchema>;

/** Volumes billed per GB-month (AWS EBS), with the gp3 extras above the included baseline. */
export const volumePriceEntrySchema = z.object({
  cloud: cloudSchema,
  region: z.string().min(1),
  volumeType: z.string().min(1),
  usdPerGbMonth: usd,
  usdPerIopsMonth: usd.optional(),
  includedIops: z.number().nonnegative().optional(),
  usdPerMibpsMonth: usd.optional(),
  includedMibps: z.number().nonnegative().optional(),
  ...provenance,
});
export type VolumePriceEntry = z.infer<typeof volumePriceEntrySchema>;

/** Disks billed per provisioned size tier (Azure managed disks): the smallest tier that fits is billed. */
export const diskTierEntrySchema = z.object({
  cloud: cloudSchema,
  region: z.string().min(1),
  volumeType: z.string().min(1),
  tier: z.string().min(1),
  sizeGib: z.number().positive(),
  usdPerMonth: usd,
  ...provenance,
});
export type DiskTierEntry = z.infer<typeof diskTierEntrySchema>;

export const emrFeeEntrySchema = z.object({
  region: z.string().min(1),
  instanceType: z.string().min(1),
  usdPerHour: usd,
  basis: priceBasisSchema,
  ...provenance,
});
export type EmrFeeEntry = z.infer<typeof emrFeeEntrySchema>;

/** DBU per hour for one node of this type; the Photon rate when a source publishes it. */
export const dbuRateEntrySchema = z.object({
  cloud: cloudSchema,
  nodeType: z.string().min(1),
  dbuPerHour: z.number().nonnegative().optional(),
  photonDbuPerHour: z.number().nonnegative().optional(),
  ...provenance,
});
export type DbuRateEntry = z.infer<typeof dbuRateEntrySchema>;

export const dbuPriceEntrySchema = z.object({
  cloud: cloudSchema,
  region: z.string().min(1),
  plan: planSchema,
  sku: dbuSkuSchema,
  usdPerDbu: usd,
  ...provenance,
});
export type DbuPriceEntry = z.infer<typeof dbuPriceEntrySchema>;

/** One source of prices: the shipped catalog, or one import written to the data directory. */
export const catalogLayerSchema = z.object({
  name: z.string().min(1),
  importedAt: z.string().optional(),
  instanceTypes: z.array(instanceTypeEntrySchema).default([]),
  instancePrices: z.array(instancePriceEntrySchema).default([]),
  spotPrices: z.array(spotPriceEntrySchema).default([]),
  spotModels: z.array(spotModelEntrySchema).default([]),
  volumePrices: z.array(volumePriceEntrySchema).default([]),
  diskTiers: z.array(diskTierEntrySchema).default([]),
  emrFees: z.array(emrFeeEntrySchema).default([]),
  dbuRates: z.array(dbuRateEntrySchema).default([]),
  dbuPrices: z.array(dbuPriceEntrySchema).default([]),
});
export type CatalogLayer = z.infer<typeof catalogLayerSchema>;
export type CatalogLayerInput = z.input<typeof catalogLayerSchema>;

type LayerLists = Omit<CatalogLayer, 'name' | 'importedAt'>;

/** A layer with every list present; a source fills only the lists it carries. */
export function catalogLayer(
  header: { name: string; importedAt?: string },
  lists: Partial<LayerLists> = {},
): CatalogLayer {
  return {
    ...header,
    instanceTypes: [],
    instancePrices: [],
    spotPrices: [],
    spotModels: [],
    volumePrices: [],
    diskTiers: [],
    emrFees: [],
    dbuRates: [],
    dbuPrices: [],
    ...lists,
  };
}

export function dbuSkuFor(compute: ComputeType, photon: boolean): DbuSku {
  if (!photon) return compute;
  if (compute === 'jobs-light') {
    throw new ValidationError('PHOTON_UNSUPPORTED', 'Photon is not available on Jobs Light compute');
  }
  return compute === 'jobs' ? 'jobs-photon' : 'all-purpose-photon';
}
