import { ValidationError } from '@setpoint/foundation/errors';
import { saveImportedLayer } from './catalog-store.js';
import { type ImportResult, importAwsOfferStream } from './importers/aws-offer.js';
import { importAwsSpotHistory } from './importers/aws-spot-history.js';
import { importAzureRetail, parseAzureRetailPages } from './importers/azure-retail.js';
import { importDatabricksCalculator, parseDatabricksCalculator } from './importers/databricks-calculator.js';
import { maxFollowedPages, readJsonSource, readTextChunks } from './importers/read-source.js';
import type { AzureRetailPage } from './importers/schema.js';
import type { Cloud } from './schema.js';

export type ImportKind = 'aws-offer' | 'aws-spot-history' | 'azure-retail' | 'databricks';

export interface ImportOptions {
  /** Cloud of a Databricks pricing file; inferred from node type names when absent. */
  cloud?: Cloud;
  /** Effective date of a Databricks pricing file (it carries none); default today. */
  effectiveDate?: string;
}

const isUrl = (location: string): boolean => /^https?:\/\//i.test(location);

/** Azure Retail Prices: a file holds one page or an array of pages; a URL is followed through NextPageLink. */
async function readAzurePages(location: string): Promise<AzureRetailPage[]> {
  const pages = parseAzureRetailPages(await readJsonSource(location));
  if (!isUrl(location)) return pages;
  let next = pages.at(-1)?.NextPageLink;
  while (next) {
    if (pages.length >= maxFollowedPages) {
      throw new ValidationError(
        'TOO_MANY_PAGES',
        `stopped after ${maxFollowedPages} pages: narrow the $filter of ${location}`,
      );
    }
    const [page] = parseAzureRetailPages(await readJsonSource(next));
    if (!page) break;
    pages.push(page);
    next = page.NextPageLink;
  }
  return pages;
}

/** Reads and converts one price source; nothing is written. */
export async function readPriceImport(
  kind: ImportKind,
  location: string,
  options: ImportOptions = {},
): Promise<ImportResult> {
  switch (kind) {
    case 'aws-offer':
      return importAwsOfferStream(readTextChunks(location), location);
    case 'aws-spot-history':
      return importAwsSpotHistory(await readJsonSource(location), location);
    case 'azure-retail':
      return importAzureRetail(await readAzurePages(location), location);
    case 'databricks': {
      const effectiveDate = options.effectiveDate ?? new Date().toISOString().slice(0, 10);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(effectiveDate)) {
        throw new ValidationError(
          'INVALID_DATE',
          `--effective-date must be YYYY-MM-DD, got ${effectiveDate}`,
        );
      }
      return importDatabricksCalculator(parseDatabricksCalculator(await readJsonSource(location)), {
        source: location,
        effectiveDate,
        ...(options.cloud ? { cloud: options.cloud } : {}),
      });
    }
  }
}

/** Imports a price source into the data directory, where it overlays the shipped catalog. */
export async function importPrices(
  dataDir: string,
  kind: ImportKind,
  location: string,
  options: ImportOptions = {},
): Promise<ImportResult & { path: string }> {
  const result = await readPriceImport(kind, location, options);
  const stamp = (result.layer.importedAt ?? new Date().toISOString()).replace(/[:.]/g, '-');
  const path = saveImportedLayer(dataDir, result.layer, `${stamp}-${kind}`);
  return { ...result, path };
}
