/**
 * AWS EBS volume list prices ($/GB-month) and the gp3 extras above the included 3,000 IOPS and 125 MiB/s.
 * Source: AWS EBS pricing page / `AmazonEC2` offer file products of family `Storage`,
 * `System Operation` and `Provisioned Throughput` (2024-07). us-west-2 matches us-east-1.
 */
export const awsStorageCatalogDate = '2024-07-01';

export interface EbsRegionPrices {
  gp2: number;
  gp3: number;
  st1: number;
  gp3UsdPerIopsMonth: number;
  gp3UsdPerMibpsMonth: number;
}

export const gp3IncludedIops = 3000;
export const gp3IncludedMibps = 125;

export const awsEbsPrices: Readonly<Record<string, EbsRegionPrices>> = {
  'us-east-1': { gp2: 0.1, gp3: 0.08, st1: 0.045, gp3UsdPerIopsMonth: 0.005, gp3UsdPerMibpsMonth: 0.04 },
  'us-west-2': { gp2: 0.1, gp3: 0.08, st1: 0.045, gp3UsdPerIopsMonth: 0.005, gp3UsdPerMibpsMonth: 0.04 },
  'eu-west-1': { gp2: 0.11, gp3: 0.088, st1: 0.05, gp3UsdPerIopsMonth: 0.0055, gp3UsdPerMibpsMonth: 0.044 },
};

/**
 * The EMR surcharge per instance-hour, the same in every region. AWS sets it near 25% of the us-east-1
 * on-demand price; for 5th-generation and older families it is capped at $0.27/h, and m4 is charged 30%.
 * These are Setpoint's rule-derived figures (basis `estimate`): import the `ElasticMapReduce` offer file for
 * exact per-type fees.
 */
const emrFeeCap = 0.27;
const cappedFamilies = new Set([
  'c4',
  'm4',
  'r4',
  'c5',
  'c5d',
  'm5',
  'm5a',
  'm5d',
  'r5',
  'r5d',
  'i3',
  'i3en',
  'z1d',
]);

export function emrFeeRule(family: string, usEast1OnDemand: number): number {
  const share = family === 'm4' ? 0.3 : 0.25;
  const fee = Math.round(usEast1OnDemand * share * 10_000) / 10_000;
  return cappedFamilies.has(family) ? Math.min(fee, emrFeeCap) : fee;
}
