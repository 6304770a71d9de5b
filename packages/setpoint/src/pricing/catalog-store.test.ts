import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@setpoint/foundation/errors';
import { describe, expect, it } from 'vitest';
import { importsDir, loadImportedLayers, loadOrganizationPricing, overridesPath } from './catalog-store.js';
import { readPriceImport } from './import-prices.js';

const newDataDir = (): string => mkdtempSync(join(tmpdir(), 'setpoint-store-'));

describe('pricing files in the data directory', () => {
  it('an absent data directory means no imports and no overrides', () => {
    const dataDir = join(newDataDir(), 'missing');
    expect(loadImportedLayers(dataDir)).toEqual([]);
    expect(loadOrganizationPricing(dataDir).customInstancePrices).toEqual([]);
  });

  it('an invalid overrides file is a config error naming the file and the field', () => {
    const dataDir = newDataDir();
    mkdirSync(join(dataDir, 'pricing'), { recursive: true });
    writeFileSync(overridesPath(dataDir), JSON.stringify({ photonDbuMultiplier: -2 }));
    expect(() => loadOrganizationPricing(dataDir)).toThrow(ConfigError);
    expect(() => loadOrganizationPricing(dataDir)).toThrow(/overrides\.json.*photonDbuMultiplier/s);
  });

  it('discounts in the overrides file are a config error that says they are organization settings now', () => {
    const dataDir = newDataDir();
    mkdirSync(join(dataDir, 'pricing'), { recursive: true });
    writeFileSync(
      overridesPath(dataDir),
      JSON.stringify({ cloudDiscountPercent: { aws: 10 }, dbuDiscountPercent: 5 }),
    );
    expect(() => loadOrganizationPricing(dataDir)).toThrow(ConfigError);
    expect(() => loadOrganizationPricing(dataDir)).toThrow(
      /overrides\.json.*cloudDiscountPercent, dbuDiscountPercent.*organization settings.*aws_discount_pct/s,
    );
  });

  it('a corrupt import file is a config error naming the file', () => {
    const dataDir = newDataDir();
    mkdirSync(importsDir(dataDir), { recursive: true });
    writeFileSync(
      join(importsDir(dataDir), 'broken.json'),
      JSON.stringify({ name: 'x', instancePrices: [{}] }),
    );
    expect(() => loadImportedLayers(dataDir)).toThrow(/broken\.json/);
  });
});

describe('Azure Retail Prices from a URL', () => {
  it('follows NextPageLink until the last page', async () => {
    const pages: Record<string, unknown> = {};
    const server = createServer((request, response) => {
      const page = pages[request.url ?? ''];
      response.writeHead(page ? 200 : 404, { 'content-type': 'application/json' });
      response.end(JSON.stringify(page ?? {}));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const item = (armSkuName: string, retailPrice: number) => ({
      currencyCode: 'USD',
      retailPrice,
      armRegionName: 'eastus',
      meterName: 'x',
      productName: 'Virtual Machines Series',
      skuName: armSkuName.replace('Standard_', ''),
      armSkuName,
      serviceName: 'Virtual Machines',
      unitOfMeasure: '1 Hour',
      type: 'Consumption',
      effectiveStartDate: '2024-08-01T00:00:00Z',
    });
    pages['/prices?page=1'] = {
      Items: [item('Standard_D4s_v3', 0.192)],
      NextPageLink: `${base}/prices?page=2`,
    };
    pages['/prices?page=2'] = { Items: [item('Standard_D8s_v3', 0.384)], NextPageLink: null };
    try {
      const { layer } = await readPriceImport('azure-retail', `${base}/prices?page=1`);
      expect(layer.instancePrices.map((entry) => [entry.instanceType, entry.usdPerHour])).toEqual([
        ['Standard_D4s_v3', 0.192],
        ['Standard_D8s_v3', 0.384],
      ]);
      await expect(readPriceImport('azure-retail', `${base}/nowhere`)).rejects.toThrow(/HTTP 404/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
