/**
 * Azure managed disks (LRS), billed per provisioned size tier per month: a disk is billed at the smallest
 * tier that holds it. Source: Azure managed-disk list prices for eastus (2024-07); the same figures apply to
 * eastus2 and westus2, and the regional factors of azure-regions.ts apply elsewhere.
 */
export const azureDiskCatalogDate = '2024-07-01';

/** tier, size GiB, $/month */
export type AzureDiskTierRow = readonly [tier: string, sizeGib: number, usdPerMonth: number];

export const azureDiskTiers: Readonly<
  Record<'premium-ssd' | 'standard-ssd' | 'standard-hdd', readonly AzureDiskTierRow[]>
> = {
  'premium-ssd': [
    ['P4', 32, 5.28],
    ['P6', 64, 10.21],
    ['P10', 128, 19.71],
    ['P15', 256, 38.02],
    ['P20', 512, 73.22],
    ['P30', 1024, 135.17],
    ['P40', 2048, 259.05],
    ['P50', 4096, 495.57],
  ],
  'standard-ssd': [
    ['E4', 32, 2.4],
    ['E6', 64, 4.8],
    ['E10', 128, 9.6],
    ['E15', 256, 19.2],
    ['E20', 512, 38.4],
    ['E30', 1024, 76.8],
    ['E40', 2048, 153.6],
    ['E50', 4096, 307.2],
  ],
  'standard-hdd': [
    ['S4', 32, 1.54],
    ['S6', 64, 3.01],
    ['S10', 128, 5.89],
    ['S15', 256, 11.33],
    ['S20', 512, 21.76],
    ['S30', 1024, 40.96],
    ['S40', 2048, 77.83],
    ['S50', 4096, 143.36],
  ],
};
