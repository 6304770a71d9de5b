import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '@setpoint/foundation/errors';
import { z } from 'zod';
import { shippedCatalog } from './catalog/shipped-catalog.js';
import {
  movedDiscountKeys,
  noOrganizationPricing,
  type OrganizationPricing,
  organizationPricingSchema,
} from './overrides.js';
import { createPriceCatalog, type PriceCatalog } from './price-catalog.js';
import { type CatalogLayer, catalogLayerSchema } from './schema.js';

/**
 * The price catalog's files in the data directory:
 *   <dataDir>/pricing/imports/*.json  one catalog layer per import (newest effective date wins per entry)
 *   <dataDir>/pricing/overrides.json  the organization's custom prices (optional)
 */
export function importsDir(dataDir: string): string {
  return join(dataDir, 'pricing', 'imports');
}

export function overridesPath(dataDir: string): string {
  return join(dataDir, 'pricing', 'overrides.json');
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

export function loadImportedLayers(dataDir: string): CatalogLayer[] {
  let names: string[];
  try {
    names = readdirSync(importsDir(dataDir)).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  return names.sort().map((name) => {
    const path = join(importsDir(dataDir), name);
    const parsed = catalogLayerSchema.safeParse(readJson(path));
    if (!parsed.success) {
      throw new ConfigError(
        `invalid price import ${path}: ${z.prettifyError(parsed.error).replaceAll('\n', '; ')}`,
      );
    }
    return parsed.data;
  });
}

export function loadOrganizationPricing(dataDir: string): OrganizationPricing {
  const path = overridesPath(dataDir);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return noOrganizationPricing;
    throw new ConfigError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const moved = movedDiscountKeys.filter((key) => typeof raw === 'object' && raw !== null && key in raw);
  if (moved.length > 0) {
    throw new ConfigError(
      `invalid pricing overrides ${path}: ${moved.join(', ')} ${moved.length > 1 ? 'are' : 'is'} no longer read here; discounts are organization settings (aws_discount_pct, azure_discount_pct, gcp_discount_pct, dbu_discount_pct: the dashboard's Settings page or PATCH /api/v1/organization/settings), applied once to the organization summary`,
    );
  }
  const parsed = organizationPricingSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(
      `invalid pricing overrides ${path}: ${z.prettifyError(parsed.error).replaceAll('\n', '; ')}`,
    );
  }
  return parsed.data;
}

/** Writes one import as its own file, named by source and time so that imports never overwrite each other. */
export function saveImportedLayer(dataDir: string, layer: CatalogLayer, fileStem: string): string {
  const dir = importsDir(dataDir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${fileStem}.json`);
  writeFileSync(path, `${JSON.stringify(layer, null, 2)}\n`);
  return path;
}

/** The shipped catalog, every import in the data directory, and the organization's overrides. */
export function openPriceCatalog(dataDir: string): PriceCatalog {
  return createPriceCatalog(
    [shippedCatalog, ...loadImportedLayers(dataDir)],
    loadOrganizationPricing(dataDir),
  );
}
