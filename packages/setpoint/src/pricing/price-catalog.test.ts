import { existsSync, readFileSync } from 'node:fs';
import { NotFoundError } from '@setpoint/foundation/errors';
import { describe, expect, it } from 'vitest';
import { shippedCatalog } from './catalog/shipped-catalog.js';
import { createPriceCatalog } from './price-catalog.js';
import { catalogLayerSchema } from './schema.js';

const catalog = createPriceCatalog([shippedCatalog]);

function expectMissing(run: () => unknown, ...fragments: string[]): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).code).toBe('PRICE_MISSING');
    for (const fragment of fragments) expect((error as Error).message).toContain(fragment);
    return;
  }
  throw new Error('expected a missing-price error');
}

describe('shipped catalog', () => {
  it('validates against the catalog-entry schema', () => {
    const parsed = catalogLayerSchema.safeParse(shippedCatalog);
    expect(parsed.success).toBe(true);
    expect(shippedCatalog.instancePrices.every((entry) => entry.usdPerHour > 0)).toBe(true);
  });

  const awsFamilies = [
    'm5 m5d m5a m6i m6id m6g m6gd m7g m7gd',
    'c5 c5d c6i c6id c6g c6gd c7g',
    'r5 r5d r6i r6id r6g r6gd r7g x2gd x2idn x2iedn',
    'i3 i3en i4i z1d c4 m4 r4',
  ]
    .join(' ')
    .split(' ');

  it.each(awsFamilies)('prices AWS family %s in us-east-1, us-west-2 and eu-west-1 with specs', (family) => {
    const types = shippedCatalog.instanceTypes.filter(
      (entry) => entry.cloud === 'aws' && entry.family === family,
    );
    expect(types.length).toBeGreaterThan(0);
    for (const type of types) {
      expect(catalog.pricedRegions('aws', type.instanceType)).toEqual([
        'eu-west-1',
        'us-east-1',
        'us-west-2',
      ]);
      expect(catalog.emrFee('us-east-1', type.instanceType).usdPerHour).toBeGreaterThan(0);
      expect(type.vcpus).toBeGreaterThan(0);
    }
    const withDisks = /d$|^i3|^i4i|^x2/.test(family);
    expect(types.every((type) => type.localNvmeGb > 0 === withDisks)).toBe(true);
  });

  const azureSeries = [
    'Dsv3',
    'Ddsv4',
    'Ddsv5',
    'Dasv5',
    'Esv3',
    'Edsv4',
    'Edsv5',
    'Fsv2',
    'Lsv2',
    'Lsv3',
    'DSv2',
  ];
  it.each(azureSeries)(
    'prices Azure series %s in eastus, westus2 and westeurope with DBU rates',
    (series) => {
      const sizes = shippedCatalog.instanceTypes.filter(
        (entry) => entry.cloud === 'azure' && entry.family === series,
      );
      expect(sizes.length).toBeGreaterThan(0);
      for (const size of sizes) {
        for (const region of ['eastus', 'westus2', 'westeurope']) {
          expect(catalog.onDemandPrice('azure', region, size.instanceType).usdPerHour).toBeGreaterThan(0);
        }
        expect(catalog.dbuRate('azure', size.instanceType, false).dbuPerHour).toBeGreaterThan(0);
      }
    },
  );

  it('has $/DBU for every cloud × plan × compute type (Azure: no Enterprise plan)', () => {
    const skus = ['jobs', 'jobs-photon', 'jobs-light', 'all-purpose', 'all-purpose-photon'] as const;
    for (const sku of skus) {
      for (const plan of ['standard', 'premium', 'enterprise'] as const) {
        expect(catalog.dbuPrice('aws', 'us-east-1', plan, sku).usdPerDbu).toBeGreaterThan(0);
      }
      for (const plan of ['standard', 'premium'] as const) {
        expect(catalog.dbuPrice('azure', 'eastus', plan, sku).usdPerDbu).toBeGreaterThan(0);
      }
    }
    expect(catalog.dbuPrice('aws', 'us-west-2', 'premium', 'jobs').usdPerDbu).toBe(0.15);
    expect(catalog.dbuPrice('aws', 'us-west-2', 'premium', 'all-purpose').usdPerDbu).toBe(0.55);
    expect(catalog.dbuPrice('azure', 'westus2', 'premium', 'jobs').usdPerDbu).toBe(0.3);
    expectMissing(() => catalog.dbuPrice('azure', 'eastus', 'enterprise', 'jobs'), 'Enterprise');
  });
});

describe('instance types Setpoint must price', () => {
  // The nine VM types of the Scout benchmark, with the on-demand us-east-1 prices its runs were costed at.
  const scout: [string, number][] = [
    ['c4.large', 0.1],
    ['c4.xlarge', 0.199],
    ['c4.2xlarge', 0.398],
    ['m4.large', 0.1],
    ['m4.xlarge', 0.2],
    ['m4.2xlarge', 0.4],
    ['r4.large', 0.133],
    ['r4.xlarge', 0.266],
    ['r4.2xlarge', 0.532],
  ];
  it.each(scout)('Scout type %s costs $%s/h on-demand in us-east-1', (type, price) => {
    expect(catalog.onDemandPrice('aws', 'us-east-1', type).usdPerHour).toBe(price);
    expect(catalog.instanceType('aws', type).vcpus).toBeGreaterThan(0);
  });

  const scoutCsv = '../shared/datasets/scout/scout_multinode_runs.csv';
  it.skipIf(!existsSync(scoutCsv))('matches every price in the Scout run table (reads ../shared)', () => {
    const [header, ...rows] = readFileSync(scoutCsv, 'utf8').trim().split(/\r?\n/);
    const columns = (header ?? '').split(',');
    const vm = columns.indexOf('vm_type');
    const price = columns.indexOf('price_usd_per_node_hour');
    const seen = new Set<string>();
    for (const row of rows) {
      const cells = row.split(',');
      const type = cells[vm] ?? '';
      seen.add(type);
      expect(catalog.onDemandPrice('aws', 'us-east-1', type).usdPerHour).toBeCloseTo(Number(cells[price]), 6);
    }
    expect(seen.size).toBe(9);
  });

  // Databricks clusters in the shared event-log corpus (clusterUsageTags driver/worker node types + region).
  const corpus: ['aws' | 'azure', string, string][] = [
    ['aws', 'us-west-2', 'm6gd.2xlarge'],
    ['aws', 'us-west-2', 'm6gd.xlarge'],
    ['aws', 'us-west-2', 'm4.2xlarge'],
    ['aws', 'us-west-2', 'm4.xlarge'],
    ['azure', 'eastus2', 'Standard_DS14_v2'],
    ['azure', 'westus', 'Standard_E8s_v3'],
    ['azure', 'westus', 'Standard_DS3_v2'],
  ];
  it.each(corpus)('corpus node type on %s %s: %s has a VM price and DBU rates', (cloud, region, type) => {
    expect(catalog.onDemandPrice(cloud, region, type).usdPerHour).toBeGreaterThan(0);
    expect(catalog.dbuRate(cloud, type, false).dbuPerHour).toBeGreaterThan(0);
    expect(catalog.dbuRate(cloud, type, true).dbuPerHour).toBeGreaterThan(
      catalog.dbuRate(cloud, type, false).dbuPerHour,
    );
  });

  it('the nds_q88 Photon cluster: 2 × m6gd.2xlarge + m6gd.xlarge driver = 2 × 1.54 + 0.77 DBU/h', () => {
    const standard =
      2 * catalog.dbuRate('aws', 'm6gd.2xlarge', false).dbuPerHour +
      catalog.dbuRate('aws', 'm6gd.xlarge', false).dbuPerHour;
    expect(standard).toBeCloseTo(2 * 1.54 + 0.77, 9);
  });
});

describe('missing prices are explicit errors', () => {
  it('names the instance, the region and what is missing', () => {
    expectMissing(
      () => catalog.onDemandPrice('aws', 'ap-south-1', 'm5.xlarge'),
      'm5.xlarge',
      'ap-south-1',
      'on-demand price',
      'us-east-1',
    );
    expectMissing(() => catalog.instanceType('aws', 'm99.huge'), 'm99.huge');
    expectMissing(() => catalog.dbuRate('aws', 'c4.large', false), 'c4.large', 'DBU rate');
    expectMissing(
      () => catalog.volumePrice('aws', 'ap-south-1', { type: 'gp3', sizeGb: 10, count: 1 }),
      'gp3',
      'ap-south-1',
    );
    expectMissing(
      () => catalog.volumePrice('azure', 'eastus', { type: 'premium-ssd', sizeGb: 9000, count: 1 }),
      '9000',
    );
  });
});

describe('imports overlay the shipped catalog by effective date', () => {
  const layer = (usdPerHour: number, effectiveDate: string) =>
    catalogLayerSchema.parse({
      name: `import ${effectiveDate}`,
      instancePrices: [
        {
          cloud: 'aws',
          region: 'us-east-1',
          instanceType: 'm5.xlarge',
          usdPerHour,
          basis: 'list',
          effectiveDate,
          source: 'import',
        },
      ],
    });

  it('a newer import wins; an older one does not, whatever the order of layers', () => {
    expect(
      createPriceCatalog([shippedCatalog, layer(0.2, '2030-01-01')]).onDemandPrice(
        'aws',
        'us-east-1',
        'm5.xlarge',
      ).usdPerHour,
    ).toBe(0.2);
    expect(
      createPriceCatalog([shippedCatalog, layer(0.3, '2001-01-01')]).onDemandPrice(
        'aws',
        'us-east-1',
        'm5.xlarge',
      ).usdPerHour,
    ).toBe(0.192);
    expect(
      createPriceCatalog([shippedCatalog, layer(0.2, '2030-01-01'), layer(0.25, '2029-01-01')]).onDemandPrice(
        'aws',
        'us-east-1',
        'm5.xlarge',
      ).usdPerHour,
    ).toBe(0.2);
  });

  it('a new region from an import becomes priceable', () => {
    const mumbai = catalogLayerSchema.parse({
      name: 'mumbai',
      instancePrices: [
        {
          cloud: 'aws',
          region: 'ap-south-1',
          instanceType: 'm5.xlarge',
          usdPerHour: 0.2,
          basis: 'list',
          effectiveDate: '2024-08-01',
          source: 'import',
        },
      ],
    });
    expect(
      createPriceCatalog([shippedCatalog, mumbai]).onDemandPrice('aws', 'ap-south-1', 'm5.xlarge').usdPerHour,
    ).toBe(0.2);
  });
});
