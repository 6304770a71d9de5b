import { type Command, Option } from '@commander-js/extra-typings';
import { AppError, ValidationError } from '@setpoint/foundation/errors';
import { loadConfig } from '../../config/load-config.js';
import { shippedCatalogVersion } from '../../pricing/catalog/shipped-catalog.js';
import { openPriceCatalog } from '../../pricing/catalog-store.js';
import { type ImportKind, importPrices } from '../../pricing/import-prices.js';
import { cloudOfNodeType, normalizeInstanceType } from '../../pricing/names.js';
import type { PriceCatalog } from '../../pricing/price-catalog.js';
import { type Cloud, dbuSkuSchema, planSchema } from '../../pricing/schema.js';
import { examples } from '../help-text.js';

interface PriceView {
  region: string;
  onDemandUsdPerHour: number;
  listUsdPerHour: number;
  basis: string;
  effectiveDate: string;
  source: string;
  adjustment?: string;
  spot: { low: number; expected: number; high: number; simulated: boolean };
  emrFeeUsdPerHour?: number;
}

const micro = (value: number): number => Math.round(value * 1e6) / 1e6;

/** Runs a lookup whose absence is part of the answer (e.g. no DBU rate for a non-Databricks type). */
function optional<T>(lookup: () => T): T | { missing: string } {
  try {
    return lookup();
  } catch (error) {
    if (error instanceof AppError && error.code === 'PRICE_MISSING') return { missing: error.message };
    throw error;
  }
}

export function describeInstance(catalog: PriceCatalog, cloud: Cloud, instance: string, region?: string) {
  const instanceType = normalizeInstanceType(cloud, instance);
  const specs = catalog.instanceType(cloud, instanceType);
  const regions = region === undefined ? catalog.pricedRegions(cloud, instanceType) : [region];
  const prices: PriceView[] = regions.map((where) => {
    const price = catalog.onDemandPrice(cloud, where, instanceType);
    const spot = catalog.spotPrice(cloud, where, instanceType);
    const emr = cloud === 'aws' ? optional(() => catalog.emrFee(where, instanceType)) : undefined;
    return {
      region: where,
      onDemandUsdPerHour: micro(price.usdPerHour),
      listUsdPerHour: price.listUsdPerHour,
      basis: price.basis,
      effectiveDate: price.effectiveDate,
      source: price.source,
      ...(price.adjustment ? { adjustment: price.adjustment } : {}),
      spot: {
        low: micro(spot.low),
        expected: micro(spot.expected),
        high: micro(spot.high),
        simulated: spot.simulated,
      },
      ...(emr && 'usdPerHour' in emr ? { emrFeeUsdPerHour: micro(emr.usdPerHour) } : {}),
    };
  });
  const dbuRegion = regions[0] ?? '*';
  const dbuPrices: Record<string, Record<string, number>> = {};
  for (const plan of planSchema.options) {
    for (const sku of dbuSkuSchema.options) {
      const price = optional(() => catalog.dbuPrice(cloud, dbuRegion, plan, sku));
      if ('usdPerDbu' in price) dbuPrices[plan] = { ...dbuPrices[plan], [sku]: price.usdPerDbu };
    }
  }
  return {
    catalog: { shippedVersion: shippedCatalogVersion, layers: catalog.layerNames },
    cloud,
    instanceType,
    specs: {
      vcpus: specs.vcpus,
      memoryGib: specs.memoryGib,
      arch: specs.arch,
      localNvmeGb: specs.localNvmeGb,
      network: specs.network,
      family: specs.family,
    },
    prices,
    dbu: {
      standard: optional(() => catalog.dbuRate(cloud, instanceType, false)),
      photon: optional(() => catalog.dbuRate(cloud, instanceType, true)),
      /** $ per DBU by plan and SKU in the first region shown. */
      usdPerDbu: { region: dbuRegion, ...dbuPrices },
    },
  };
}

const money = (value: number): string => `$${Number(value.toFixed(6))}`;

function renderInstance(view: ReturnType<typeof describeInstance>): string {
  const { specs } = view;
  const lines = [
    `${view.instanceType} (${view.cloud}, family ${specs.family}): ${specs.vcpus} vCPU, ${specs.memoryGib} GiB, ${specs.arch}` +
      `${specs.localNvmeGb > 0 ? `, ${specs.localNvmeGb} GB local NVMe` : ''}${specs.network ? `, network ${specs.network}` : ''}`,
  ];
  for (const price of view.prices) {
    lines.push(
      `  ${price.region}: on-demand ${money(price.onDemandUsdPerHour)}/h (${price.basis}, ${price.effectiveDate}` +
        `${price.adjustment ? `, ${price.adjustment}` : ''}); spot ${money(price.spot.low)}–${money(price.spot.high)}/h, ` +
        `expected ${money(price.spot.expected)}${price.spot.simulated ? ' (simulated)' : ''}` +
        `${price.emrFeeUsdPerHour === undefined ? '' : `; EMR fee ${money(price.emrFeeUsdPerHour)}/h`}`,
      `    source: ${price.source}`,
    );
  }
  for (const [label, rate] of [
    ['standard', view.dbu.standard],
    ['photon', view.dbu.photon],
  ] as const) {
    lines.push(
      'dbuPerHour' in rate
        ? `  Databricks ${label}: ${Number(rate.dbuPerHour.toFixed(6))} DBU/h per node (${rate.source})`
        : `  Databricks ${label}: ${rate.missing}`,
    );
  }
  const { region: dbuRegion, ...plans } = view.dbu.usdPerDbu;
  for (const [plan, skus] of Object.entries(plans)) {
    const list = Object.entries(skus as Record<string, number>).map(([sku, price]) => `${sku} $${price}`);
    lines.push(`  $/DBU ${plan} (${dbuRegion}): ${list.join(', ')}`);
  }
  lines.push(`  catalog: shipped ${view.catalog.shippedVersion}; layers: ${view.catalog.layers.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

export function registerPricingCommand(program: Command): void {
  const pricing = program
    .command('pricing')
    .description('the price catalog: what Setpoint believes, and imports')
    .addHelpText(
      'after',
      examples(
        'setpoint pricing show m5.xlarge',
        'setpoint pricing import --aws-offer ./AmazonEC2-us-east-1.json',
      ),
    );

  pricing
    .command('show')
    .description('print the specs, prices and DBU rates Setpoint uses for an instance type')
    .argument('<instance>', 'instance type (e.g. m5.xlarge, Standard_DS3_v2, DS3_v2)')
    .addOption(
      new Option('--cloud <cloud>', 'cloud (default: guessed from the name)').choices([
        'aws',
        'azure',
      ] as const),
    )
    .option('--region <region>', 'only this region (default: every priced region)')
    .option('--json', 'print as JSON')
    .option('--data-dir <dir>', 'data directory with imported prices and overrides (env SETPOINT_DATA_DIR)')
    .addHelpText(
      'after',
      `
Examples:
  setpoint pricing show m5.xlarge
  setpoint pricing show m6gd.2xlarge --region us-west-2 --json
  setpoint pricing show Standard_DS3_v2 --cloud azure --region eastus

Prices are the shipped dated catalog, overlaid by imports in <data-dir>/pricing/imports (the newest
effective date wins) and adjusted by <data-dir>/pricing/overrides.json. A price Setpoint does not know is
an error naming what is missing, never zero.`,
    )
    .action((instance, options) => {
      const cloud = options.cloud ?? cloudOfNodeType(instance);
      const catalog = openPriceCatalog(loadConfig({ dataDir: options.dataDir }).dataDir);
      const view = describeInstance(catalog, cloud, instance, options.region);
      process.stdout.write(options.json ? `${JSON.stringify(view, null, 2)}\n` : renderInstance(view));
    });

  pricing
    .command('import')
    .description('import current prices into the data directory, where they overlay the shipped catalog')
    .option('--aws-offer <file|url>', 'AWS Price List bulk offer JSON (AmazonEC2 or ElasticMapReduce)')
    .option(
      '--aws-spot-history <file|url>',
      'EC2 spot price history (aws ec2 describe-spot-price-history --output json)',
    )
    .option(
      '--azure-retail <file|url>',
      'Azure Retail Prices API response (a page, an array of pages, or a URL to follow)',
    )
    .option('--databricks <file|url>', 'Databricks pricing-calculator JSON')
    .addOption(
      new Option('--cloud <cloud>', 'cloud of a --databricks file (default: guessed from names)').choices([
        'aws',
        'azure',
      ] as const),
    )
    .option('--effective-date <date>', 'effective date of a --databricks file, YYYY-MM-DD (default: today)')
    .option('--json', 'print the import summary as JSON')
    .option('--data-dir <dir>', 'data directory (env SETPOINT_DATA_DIR, default .setpoint)')
    .addHelpText(
      'after',
      `
Examples:
  setpoint pricing import --aws-offer https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/ElasticMapReduce/current/us-east-1/index.json
  setpoint pricing import --aws-offer ./AmazonEC2-us-east-1.json
  aws ec2 describe-spot-price-history --product-descriptions Linux/UNIX --output json > spot.json
  setpoint pricing import --aws-spot-history ./spot.json
  setpoint pricing import --azure-retail "https://prices.azure.com/api/retail/prices?\\$filter=serviceName eq 'Azure Databricks'"
  setpoint pricing import --databricks https://www.databricks.com/en-pricing-assets/data/pricing/AWS.json --cloud aws

Only http(s) URLs are fetched. Each import is written as its own file under <data-dir>/pricing/imports.`,
    )
    .action(async (options) => {
      const sources: [ImportKind, string | undefined][] = [
        ['aws-offer', options.awsOffer],
        ['aws-spot-history', options.awsSpotHistory],
        ['azure-retail', options.azureRetail],
        ['databricks', options.databricks],
      ];
      const given = sources.filter((entry): entry is [ImportKind, string] => entry[1] !== undefined);
      const [chosen] = given;
      if (given.length !== 1 || !chosen) {
        throw new ValidationError(
          'INVALID_OPTION',
          'give exactly one of --aws-offer, --aws-spot-history, --azure-retail and --databricks',
        );
      }
      const dataDir = loadConfig({ dataDir: options.dataDir }).dataDir;
      const result = await importPrices(dataDir, chosen[0], chosen[1], {
        ...(options.cloud ? { cloud: options.cloud } : {}),
        ...(options.effectiveDate ? { effectiveDate: options.effectiveDate } : {}),
      });
      process.stdout.write(
        options.json
          ? `${JSON.stringify({ kind: chosen[0], path: result.path, layer: result.layer.name, summary: result.summary })}\n`
          : `imported ${result.summary}\n  into ${result.path}\n`,
      );
    });
}
