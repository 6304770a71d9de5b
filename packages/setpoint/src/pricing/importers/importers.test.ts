import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ValidationError } from '@setpoint/foundation/errors';
import { describe, expect, it } from 'vitest';
import { shippedCatalog } from '../catalog/shipped-catalog.js';
import { openPriceCatalog } from '../catalog-store.js';
import { importPrices, readPriceImport } from '../import-prices.js';
import { createPriceCatalog } from '../price-catalog.js';
import { importAwsOffer } from './aws-offer.js';
import { importAwsSpotHistory } from './aws-spot-history.js';
import { databricksSkuOf, importAzureRetail, parseAzureRetailPages } from './azure-retail.js';
import { readJsonSource } from './read-source.js';

const fixture = (name: string): string => join('tests', 'fixtures', 'pricing', name);
const readFixture = (name: string): unknown => JSON.parse(readFileSync(fixture(name), 'utf8'));

describe('AWS Price List offer import', () => {
  const { layer } = importAwsOffer(readFixture('aws-ec2-offer.json'), 'aws-ec2-offer.json');

  it('keeps only Linux, shared-tenancy, used-capacity on-demand prices', () => {
    const m5 = layer.instancePrices.filter((entry) => entry.instanceType === 'm5.xlarge');
    expect(m5).toHaveLength(1); // Windows, dedicated and capacity-reservation SKUs are skipped
    expect(m5[0]).toMatchObject({
      region: 'us-east-1',
      usdPerHour: 0.2,
      effectiveDate: '2024-07-15',
      basis: 'list',
    });
  });

  it('maps an offer location name to its region and reads specs (Graviton → arm64, NVMe size)', () => {
    expect(layer.instancePrices.find((entry) => entry.instanceType === 'm6gd.xlarge')).toMatchObject({
      region: 'eu-central-1',
      usdPerHour: 0.2128,
    });
    expect(layer.instanceTypes.find((entry) => entry.instanceType === 'm6gd.xlarge')).toMatchObject({
      vcpus: 4,
      memoryGib: 16,
      arch: 'arm64',
      localNvmeGb: 237,
    });
  });

  it('reads EBS gp2/gp3 with gp3 IOPS and throughput (GiBps-month ÷ 1024 per MiB/s)', () => {
    const gp3 = layer.volumePrices.find((entry) => entry.volumeType === 'gp3');
    expect(gp3).toMatchObject({
      region: 'us-east-1',
      usdPerGbMonth: 0.08,
      usdPerIopsMonth: 0.005,
      includedIops: 3000,
    });
    expect(gp3?.usdPerMibpsMonth).toBeCloseTo(40.96 / 1024, 12);
    expect(layer.volumePrices.find((entry) => entry.volumeType === 'gp2')?.usdPerGbMonth).toBe(0.1);
  });

  it('reads EMR fees from the ElasticMapReduce offer (EMR software only)', () => {
    const emr = importAwsOffer(readFixture('aws-emr-offer.json'), 'emr').layer;
    expect(emr.emrFees.map((fee) => [fee.instanceType, fee.usdPerHour])).toEqual([
      ['m5.xlarge', 0.048],
      ['m6gd.xlarge', 0.0452],
    ]);
  });

  it('an imported newer price wins over the shipped one; a new region becomes priceable', () => {
    const catalog = createPriceCatalog([shippedCatalog, layer]);
    expect(catalog.onDemandPrice('aws', 'us-east-1', 'm5.xlarge').usdPerHour).toBe(0.2);
    expect(catalog.onDemandPrice('aws', 'us-west-2', 'm5.xlarge').usdPerHour).toBe(0.192);
    expect(catalog.onDemandPrice('aws', 'eu-central-1', 'm6gd.xlarge').usdPerHour).toBe(0.2128);
  });

  it('rejects a document that is not an offer file', () => {
    expect(() => importAwsOffer({ Items: [] }, 'x')).toThrow(ValidationError);
  });
});

describe('EC2 spot price history import', () => {
  it('folds zones into regions: mean, min and max of the Linux samples', () => {
    const { layer } = importAwsSpotHistory(readFixture('aws-spot-price-history.json'), 'fixture');
    const m5 = layer.spotPrices.find((entry) => entry.instanceType === 'm5.xlarge');
    // three Linux samples in us-east-1a/b/c; the Windows sample is skipped
    expect(m5?.region).toBe('us-east-1');
    expect(m5?.usdPerHour).toBeCloseTo((0.0721 + 0.0683 + 0.0816) / 3, 12);
    expect(m5).toMatchObject({ minUsdPerHour: 0.0683, maxUsdPerHour: 0.0816, effectiveDate: '2024-07-03' });
    const catalog = createPriceCatalog([shippedCatalog, layer]);
    expect(catalog.spotPrice('aws', 'us-west-2', 'm6gd.2xlarge')).toMatchObject({
      expected: 0.1432,
      simulated: false,
    });
  });
});

describe('Azure Retail Prices import', () => {
  const pages = parseAzureRetailPages([
    readFixture('azure-retail-page-1.json'),
    readFixture('azure-retail-page-2.json'),
  ]);
  const { layer } = importAzureRetail(pages, 'fixture');

  it('reads Linux pay-as-you-go VM prices across pages; skips Windows, low priority, reservations, non-USD', () => {
    const prices = Object.fromEntries(
      layer.instancePrices.map((e) => [`${e.region} ${e.instanceType}`, e.usdPerHour]),
    );
    expect(prices).toEqual({
      'eastus Standard_DS3_v2': 0.25,
      'westus Standard_E8s_v3': 0.56,
      'eastus2 Standard_DS14_v2': 1.171,
    });
  });

  it('reads spot prices, Databricks $/DBU per plan and SKU, and LRS disk tiers', () => {
    expect(layer.spotPrices).toHaveLength(1);
    expect(layer.spotPrices[0]).toMatchObject({
      region: 'eastus',
      instanceType: 'Standard_DS3_v2',
      usdPerHour: 0.0458,
    });
    const dbu = Object.fromEntries(layer.dbuPrices.map((e) => [`${e.plan} ${e.sku}`, e.usdPerDbu]));
    expect(dbu).toEqual({ 'premium jobs': 0.3, 'premium jobs-photon': 0.3, 'premium all-purpose': 0.55 });
    expect(layer.diskTiers).toEqual([
      expect.objectContaining({ volumeType: 'premium-ssd', tier: 'P10', sizeGib: 128, usdPerMonth: 19.71 }),
    ]);
  });

  it('names Databricks SKUs', () => {
    expect(databricksSkuOf('Standard Jobs Light Compute')).toEqual({ plan: 'standard', sku: 'jobs-light' });
    expect(databricksSkuOf('Premium All-Purpose Photon')).toEqual({
      plan: 'premium',
      sku: 'all-purpose-photon',
    });
    expect(databricksSkuOf('Premium Serverless SQL')).toBeUndefined();
  });

  it('imported spot history replaces the simulated spot model', () => {
    const catalog = createPriceCatalog([shippedCatalog, layer]);
    expect(catalog.spotPrice('azure', 'eastus', 'Standard_DS3_v2')).toMatchObject({
      expected: 0.0458,
      simulated: false,
    });
    expect(catalog.spotPrice('azure', 'westus2', 'Standard_DS3_v2').simulated).toBe(true);
  });
});

describe('Databricks pricing-calculator import', () => {
  it('reads per-node DBU/h (standard and Photon) and $/DBU per plan × SKU', async () => {
    const { layer } = await readPriceImport('databricks', fixture('databricks-aws-pricing.json'), {
      effectiveDate: '2024-09-01',
    });
    const m5 = layer.dbuRates.find((entry) => entry.nodeType === 'm5.xlarge');
    expect(m5).toMatchObject({ cloud: 'aws', dbuPerHour: 0.69, photonDbuPerHour: 1.5 });
    const prices = Object.fromEntries(layer.dbuPrices.map((e) => [`${e.plan} ${e.sku}`, e.usdPerDbu]));
    expect(prices).toEqual({
      'premium jobs': 0.15,
      'premium jobs-photon': 0.15,
      'premium all-purpose': 0.55,
      'premium jobs-light': 0.1,
      'enterprise jobs': 0.2,
    });
    const catalog = createPriceCatalog([shippedCatalog, layer]);
    expect(catalog.dbuRate('aws', 'm5.xlarge', true).dbuPerHour).toBe(1.5);
    expect(catalog.dbuRate('aws', 'c4.xlarge', false).dbuPerHour).toBe(0.75);
  });
});

describe('imports land in the data directory and overlay the shipped catalog', () => {
  it('writes one file per import, read back by openPriceCatalog', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'setpoint-pricing-'));
    const result = await importPrices(dataDir, 'aws-offer', fixture('aws-ec2-offer.json'));
    expect(result.path.startsWith(join(dataDir, 'pricing', 'imports'))).toBe(true);
    expect(openPriceCatalog(dataDir).onDemandPrice('aws', 'us-east-1', 'm5.xlarge').usdPerHour).toBe(0.2);
  });

  it('refuses non-http(s) URLs', async () => {
    await expect(readJsonSource('ftp://example.com/prices.json')).rejects.toThrow(/only http\(s\)/);
    await expect(readJsonSource('file:///etc/passwd')).rejects.toThrow(/only http\(s\)/);
  });
});
