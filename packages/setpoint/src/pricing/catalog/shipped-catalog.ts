import { type CatalogLayer, catalogLayer } from '../schema.js';
import { awsEc2CatalogDate, awsEc2Rows } from './aws-ec2.js';
import {
  awsEbsPrices,
  awsStorageCatalogDate,
  emrFeeRule,
  gp3IncludedIops,
  gp3IncludedMibps,
} from './aws-storage.js';
import { azureDiskCatalogDate, azureDiskTiers } from './azure-disks.js';
import { azureRegionPricing } from './azure-regions.js';
import { azureVmCatalogDate, azureVmRows } from './azure-vms.js';
import { databricksAwsDbuDate, databricksAwsDbuPerHour } from './databricks-aws-dbu.js';
import { databricksDbuPriceDate, databricksDbuPrices } from './databricks-dbu-prices.js';
import { awsSpotModel, azureSpotModel, spotModelDate } from './spot-model.js';

/** Bumped whenever the shipped tables change; shown by `setpoint pricing show`. */
export const shippedCatalogVersion = '2024.07-1';

const sources = {
  awsEc2: 'Setpoint catalog: AWS on-demand Linux list price (aws-ec2.ts)',
  awsEbs: 'Setpoint catalog: AWS EBS list price (aws-storage.ts)',
  emr: 'Setpoint catalog: EMR fee rule (aws-storage.ts)',
  azureVm: 'Setpoint catalog: Azure VM price from the westus2 Databricks pricing table (azure-vms.ts)',
  azureDisk: 'Setpoint catalog: Azure managed-disk list price (azure-disks.ts)',
  dbuAws: 'Setpoint catalog: Databricks AWS DBU/h per node (databricks-aws-dbu.ts)',
  dbuAzure: 'Setpoint catalog: Azure Databricks DBU count per VM (azure-vms.ts)',
  dbuPrice: 'Setpoint catalog: Databricks $/DBU list price (databricks-dbu-prices.ts)',
  spot: 'Setpoint catalog: default spot discount model, simulated (spot-model.ts)',
};

const round6 = (value: number): number => Math.round(value * 1e6) / 1e6;
const familyOf = (instanceType: string): string => instanceType.split('.')[0] ?? instanceType;
/** `Standard_E8ds_v5` → `Edsv5`, `Standard_DS3_v2` → `DSv2`. */
const azureSeriesOf = (vmSize: string): string =>
  vmSize
    .replace(/^Standard_/, '')
    .replace(/\d+/, '')
    .replace('_', '');

function buildShippedCatalog(): CatalogLayer {
  const layer = catalogLayer({ name: `shipped ${shippedCatalogVersion}` });

  for (const [instanceType, vcpus, memoryGib, arch, localNvmeGb, network, ...rest] of awsEc2Rows) {
    const [usEast1, usWest2, euWest1, euWest1Basis] = rest;
    const family = familyOf(instanceType);
    const common = { effectiveDate: awsEc2CatalogDate, source: sources.awsEc2 };
    layer.instanceTypes.push({
      cloud: 'aws',
      instanceType,
      family,
      vcpus,
      memoryGib,
      arch,
      localNvmeGb,
      network,
      ...common,
    });
    const regionPrices = [
      ['us-east-1', usEast1, 'list'],
      ['us-west-2', usWest2, 'list'],
      ['eu-west-1', euWest1, euWest1Basis],
    ] as const;
    for (const [region, usdPerHour, basis] of regionPrices) {
      layer.instancePrices.push({ cloud: 'aws', region, instanceType, usdPerHour, basis, ...common });
    }
    layer.emrFees.push({
      region: '*',
      instanceType,
      usdPerHour: emrFeeRule(family, usEast1),
      basis: 'estimate',
      effectiveDate: awsEc2CatalogDate,
      source: sources.emr,
    });
  }

  for (const [region, prices] of Object.entries(awsEbsPrices)) {
    const common = {
      cloud: 'aws' as const,
      region,
      effectiveDate: awsStorageCatalogDate,
      source: sources.awsEbs,
    };
    layer.volumePrices.push({ ...common, volumeType: 'gp2', usdPerGbMonth: prices.gp2 });
    layer.volumePrices.push({ ...common, volumeType: 'st1', usdPerGbMonth: prices.st1 });
    layer.volumePrices.push({
      ...common,
      volumeType: 'gp3',
      usdPerGbMonth: prices.gp3,
      usdPerIopsMonth: prices.gp3UsdPerIopsMonth,
      includedIops: gp3IncludedIops,
      usdPerMibpsMonth: prices.gp3UsdPerMibpsMonth,
      includedMibps: gp3IncludedMibps,
    });
  }

  for (const [vmSize, vcpus, memoryGib, dbuPerHour, westus2] of azureVmRows) {
    const family = azureSeriesOf(vmSize);
    const localNvmeGb = /^Standard_L\d+s_v[23]$/.test(vmSize) ? (vcpus / 8) * 1920 : 0;
    layer.instanceTypes.push({
      cloud: 'azure',
      instanceType: vmSize,
      family,
      vcpus,
      memoryGib,
      arch: 'x86_64',
      localNvmeGb,
      network: '',
      effectiveDate: azureVmCatalogDate,
      source: sources.azureVm,
    });
    for (const [region, { factor, basis }] of Object.entries(azureRegionPricing)) {
      layer.instancePrices.push({
        cloud: 'azure',
        region,
        instanceType: vmSize,
        usdPerHour: round6(westus2 * factor),
        basis,
        effectiveDate: azureVmCatalogDate,
        source: sources.azureVm,
      });
    }
    layer.dbuRates.push({
      cloud: 'azure',
      nodeType: vmSize,
      dbuPerHour,
      effectiveDate: azureVmCatalogDate,
      source: sources.dbuAzure,
    });
  }

  for (const [volumeType, tiers] of Object.entries(azureDiskTiers)) {
    for (const [region, { factor }] of Object.entries(azureRegionPricing)) {
      for (const [tier, sizeGib, usdPerMonth] of tiers) {
        layer.diskTiers.push({
          cloud: 'azure',
          region,
          volumeType,
          tier,
          sizeGib,
          usdPerMonth: round6(usdPerMonth * factor),
          effectiveDate: azureDiskCatalogDate,
          source: sources.azureDisk,
        });
      }
    }
  }

  for (const [nodeType, dbuPerHour] of databricksAwsDbuPerHour) {
    layer.dbuRates.push({
      cloud: 'aws',
      nodeType,
      dbuPerHour,
      effectiveDate: databricksAwsDbuDate,
      source: sources.dbuAws,
    });
  }

  for (const [cloud, plan, jobs, jobsLight, allPurpose] of databricksDbuPrices) {
    const skus = {
      jobs,
      'jobs-photon': jobs,
      'jobs-light': jobsLight,
      'all-purpose': allPurpose,
      'all-purpose-photon': allPurpose,
    };
    for (const [sku, usdPerDbu] of Object.entries(skus) as [keyof typeof skus, number][]) {
      layer.dbuPrices.push({
        cloud,
        region: '*',
        plan,
        sku,
        usdPerDbu,
        effectiveDate: databricksDbuPriceDate,
        source: sources.dbuPrice,
      });
    }
  }

  for (const [cloud, rows] of [
    ['aws', awsSpotModel],
    ['azure', azureSpotModel],
  ] as const) {
    for (const [family, savingsLow, savingsExpected, savingsHigh] of rows) {
      layer.spotModels.push({
        cloud,
        family,
        savingsLow,
        savingsExpected,
        savingsHigh,
        effectiveDate: spotModelDate,
        source: sources.spot,
      });
    }
  }
  return layer;
}

/** The catalog compiled into Setpoint; imports in the data directory override it entry by entry. */
export const shippedCatalog: CatalogLayer = buildShippedCatalog();
