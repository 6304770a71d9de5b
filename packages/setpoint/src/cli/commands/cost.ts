import { type Command, Option } from '@commander-js/extra-typings';
import { ValidationError } from '@setpoint/foundation/errors';
import { costByKind, costKindLabels } from '@setpoint/insights';
import { loadConfig } from '../../config/load-config.js';
import type { ClusterCostSpec, Market, WorkerProfile } from '../../cost/cluster-spec.js';
import { createCostModel } from '../../cost/cost-model.js';
import { type ClusterEstimate, estimateClusterCost } from '../../cost/estimate.js';
import { cloudOnlyBilling, type PlatformBilling } from '../../cost/platform-billing.js';
import { databricksBilling } from '../../platforms/databricks/cluster-shape/billing.js';
import {
  type PhotonBreakEven,
  photonBreakEven,
  photonBreakEvenForCluster,
} from '../../platforms/databricks/cluster-shape/photon-breakeven.js';
import { emrBilling } from '../../platforms/emr/cost/emr-billing.js';
import { openPriceCatalog } from '../../pricing/catalog-store.js';
import type { VolumeSpec } from '../../pricing/price-catalog.js';
import type { Cloud, ComputeType, Plan } from '../../pricing/schema.js';
import { examples } from '../help-text.js';
import { parseNumberOption } from '../option-values.js';

const clouds = ['aws', 'azure'] as const;
const plans = ['standard', 'premium', 'enterprise'] as const;
const computeTypes = ['jobs', 'jobs-light', 'all-purpose'] as const;
const platforms = ['databricks', 'emr', 'cloud-only'] as const;

/** Each `--platform`'s billing description, as its platform publishes it. */
const billingOf: Record<(typeof platforms)[number], (options: ClusterOptions) => PlatformBilling> = {
  databricks: (options) =>
    databricksBilling({ plan: options.plan, compute: options.compute, photon: options.photon ?? false }),
  emr: () => emrBilling,
  'cloud-only': () => cloudOnlyBilling,
};

/** Money in the output is rounded to micro-dollars; DBU units likewise. */
const micro = (value: number): number => Math.round(value * 1e6) / 1e6;

const positiveNumber = (flag: string, text: string) => parseNumberOption(flag, text, { above: 0 });
const wholeNumber = (flag: string, text: string) => parseNumberOption(flag, text, { whole: true, min: 0 });

/** `gp3:100`, `gp3:100x2`, `gp3:100x2:4000:250` (IOPS and MiB/s for gp3), `premium-ssd:256`. */
export function parseVolume(text: string): VolumeSpec {
  const match = text.trim().match(/^([a-z0-9-]+):(\d+)(?:x(\d+))?(?::(\d+))?(?::(\d+))?$/i);
  if (!match) {
    throw new ValidationError(
      'INVALID_EBS',
      `--ebs expects TYPE:GB[xCOUNT] (e.g. gp3:100x2, st1:500, premium-ssd:256), got "${text}"`,
    );
  }
  const [, type = '', size = '0', count, iops, throughput] = match;
  return {
    type: type.toLowerCase(),
    sizeGb: Number(size),
    count: count === undefined ? 1 : Number(count),
    ...(iops === undefined ? {} : { iops: Number(iops) }),
    ...(throughput === undefined ? {} : { throughputMibps: Number(throughput) }),
  };
}

export function parseAutoscale(text: string, rampMinutes: number): WorkerProfile {
  const match = text.trim().match(/^(\d{1,5}):(\d{1,5})$/);
  if (!match)
    throw new ValidationError('INVALID_AUTOSCALE', `--autoscale expects MIN:MAX (e.g. 2:8), got "${text}"`);
  const min = Number(match[1]);
  const max = Number(match[2]);
  if (min > max) throw new ValidationError('INVALID_AUTOSCALE', `--autoscale needs MIN ≤ MAX, got ${text}`);
  return { kind: 'autoscale', min, max, rampMinutes };
}

interface ClusterOptions {
  cloud?: Cloud;
  region?: string;
  plan: Plan;
  compute: ComputeType;
  platform: (typeof platforms)[number];
  nodeType?: string;
  driverNodeType?: string;
  photon?: boolean;
  spot?: boolean;
  spotWithFallback?: boolean;
  firstOnDemand: string;
  ebs?: string[];
}

function required<T>(value: T | undefined, flag: string): T {
  if (value === undefined) throw new ValidationError('MISSING_OPTION', `${flag} is required`);
  return value;
}

function clusterSpecFrom(options: ClusterOptions): ClusterCostSpec {
  if (options.spot && options.spotWithFallback) {
    throw new ValidationError('INVALID_OPTION', 'choose one of --spot and --spot-with-fallback');
  }
  if (options.photon && options.platform !== 'databricks') {
    throw new ValidationError('INVALID_OPTION', '--photon applies to Databricks clusters only');
  }
  const market: Market = options.spot
    ? 'spot'
    : options.spotWithFallback
      ? 'spot-with-fallback'
      : 'on-demand';
  const nodeType = required(options.nodeType, '--node-type');
  return {
    cloud: required(options.cloud, '--cloud'),
    region: required(options.region, '--region'),
    billing: billingOf[options.platform](options),
    driverNodeType: options.driverNodeType ?? nodeType,
    workerNodeType: nodeType,
    market,
    firstOnDemand: wholeNumber('--first-on-demand', options.firstOnDemand),
    volumesPerNode: (options.ebs ?? []).map(parseVolume),
  };
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

function addClusterOptions(command: ReturnType<Command['command']>) {
  return command
    .addOption(new Option('--cloud <cloud>', 'cloud provider').choices(clouds))
    .option('--region <region>', 'cloud region (e.g. us-east-1, eastus)')
    .addOption(new Option('--plan <plan>', 'Databricks plan').choices(plans).default('premium'))
    .addOption(
      new Option('--compute <type>', 'Databricks compute type').choices(computeTypes).default('jobs'),
    )
    .addOption(
      new Option('--platform <platform>', 'who bills on top of the VMs')
        .choices(platforms)
        .default('databricks'),
    )
    .option('--node-type <type>', 'worker instance type (e.g. m5.xlarge, Standard_DS3_v2)')
    .option('--driver-node-type <type>', 'driver instance type (default: the worker type)')
    .option('--photon', 'Photon runtime (more DBUs per node-hour)')
    .option('--spot', 'workers on spot (driver on-demand, as with first_on_demand=1)')
    .option('--spot-with-fallback', 'workers on spot, falling back to on-demand when spot is short')
    .option('--first-on-demand <n>', 'nodes kept on-demand, driver first', '1')
    .option('--ebs <volume>', 'volumes per node, TYPE:GB[xCOUNT][:IOPS[:MIBPS]] (repeatable)', collect);
}

/** The exact `--json` shape of `setpoint cost estimate`. */
export function estimateJson(estimate: ClusterEstimate): Record<string, unknown> {
  const byKind = costByKind(estimate.components);
  return {
    currency: 'USD',
    hours: estimate.hours,
    nodes: { driver: estimate.nodes.driver, workers: micro(estimate.nodes.workers) },
    components: estimate.components.map((component) => ({
      kind: component.kind,
      fee: component.fee,
      description: component.description,
      quantity: micro(component.quantity),
      unit: component.unit,
      unit_price_usd: component.unit_price_usd === null ? null : micro(component.unit_price_usd),
      usd: micro(component.usd),
      low_usd: micro(component.low_usd),
      high_usd: micro(component.high_usd),
    })),
    by_kind: Object.fromEntries(Object.entries(byKind).map(([kind, usd]) => [kind, micro(usd)])),
    total: micro(estimate.total),
    low: micro(estimate.low),
    high: micro(estimate.high),
  };
}

const usd = (value: number): string => `$${value.toFixed(4)}`;

function renderEstimate(estimate: ClusterEstimate, spec: ClusterCostSpec): string {
  const workers = micro(estimate.nodes.workers);
  const rows = estimate.components.map((component) => [
    costKindLabels[component.kind],
    component.description,
    `${micro(component.quantity)} ${component.unit}${component.unit_price_usd === null ? '' : ` × $${micro(component.unit_price_usd)}`}`,
    usd(component.usd),
  ]);
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = [
    `Estimated cost for ${estimate.hours} h: 1 driver (${spec.driverNodeType}) + ${workers} worker${workers === 1 ? '' : 's'} (${spec.workerNodeType}), ${spec.cloud} ${spec.region}, ${spec.market}`,
    ...rows.map(
      (row) =>
        `  ${row.map((cell, column) => (column < 3 ? cell.padEnd(widths[column]!) : cell)).join('  ')}`,
    ),
    `  total  ${usd(estimate.total)}  (range ${usd(estimate.low)} – ${usd(estimate.high)})`,
  ];
  if (estimate.spotSimulated) {
    lines.push(
      '  spot prices are simulated from the default discount model (import spot prices to replace it)',
    );
  }
  return `${lines.join('\n')}\n`;
}

function renderBreakEven(result: PhotonBreakEven): string {
  return [
    `Photon break-even speed-up: ${Number(result.threshold.toFixed(2))}×`,
    ...result.reasoning.map((line) => `  ${line}`),
    '',
  ].join('\n');
}

export function registerCostCommand(program: Command): void {
  const cost = program
    .command('cost')
    .description('what a cluster costs: estimates for hypothetical clusters and the Photon break-even')
    .addHelpText(
      'after',
      examples(
        'setpoint cost estimate --cloud aws --region us-east-1 --node-type m5.xlarge --workers 8 --hours 1',
        'setpoint cost photon-breakeven --cloud aws --region us-east-1 --node-type m5.xlarge --workers 10',
      ),
    );

  addClusterOptions(
    cost
      .command('estimate')
      .description('estimate the cost of a cluster for a duration (cloud VMs + disks + DBUs or EMR fee)'),
  )
    .option('--workers <n>', 'fixed number of workers')
    .option('--autoscale <min:max>', 'autoscaling workers, climbing from MIN to MAX')
    .option('--ramp-minutes <minutes>', 'time autoscaling takes from MIN to MAX', '10')
    .option('--hours <hours>', 'how long the cluster runs')
    .option('--json', 'print the estimate as JSON')
    .option('--data-dir <dir>', 'data directory with imported prices and overrides (env SETPOINT_DATA_DIR)')
    .addHelpText(
      'after',
      `
Examples:
  setpoint cost estimate --cloud aws --region us-east-1 --plan premium --compute jobs \\
      --node-type m5.xlarge --workers 8 --hours 1
  setpoint cost estimate --cloud azure --region eastus --node-type Standard_DS3_v2 --autoscale 2:8 \\
      --ramp-minutes 15 --spot-with-fallback --hours 2 --json
  setpoint cost estimate --cloud aws --region us-west-2 --node-type m6gd.2xlarge \\
      --driver-node-type m6gd.xlarge --workers 2 --photon --ebs gp3:100x2 --hours 0.5
  setpoint cost estimate --cloud aws --region us-east-1 --platform emr --node-type r5.xlarge --workers 4 --hours 3

--json prints {"currency","hours","nodes":{"driver","workers"},"components":[{"kind","fee","description",
"quantity","unit","unit_price_usd","usd","low_usd","high_usd"}],"by_kind":{"compute","platform_fee","storage",
"network","other"},"total","low","high"} in USD. With --autoscale, nodes.workers is the expected
time-weighted mean; low assumes MIN workers throughout and high MAX workers throughout. Spot ranges come
from imported spot prices or, when none, the default spot discount model.`,
    )
    .action((options) => {
      const spec = clusterSpecFrom(options);
      if ((options.workers === undefined) === (options.autoscale === undefined)) {
        throw new ValidationError(
          'INVALID_OPTION',
          'give exactly one of --workers N and --autoscale MIN:MAX',
        );
      }
      const profile: WorkerProfile =
        options.workers !== undefined
          ? { kind: 'fixed', workers: wholeNumber('--workers', options.workers) }
          : parseAutoscale(options.autoscale ?? '', wholeNumber('--ramp-minutes', options.rampMinutes));
      const hours = positiveNumber('--hours', required(options.hours, '--hours'));
      const dataDir = loadConfig({ dataDir: options.dataDir }).dataDir;
      const estimate = estimateClusterCost(createCostModel(openPriceCatalog(dataDir)), spec, profile, hours);
      process.stdout.write(
        options.json ? `${JSON.stringify(estimateJson(estimate))}\n` : renderEstimate(estimate, spec),
      );
    });

  addClusterOptions(
    cost
      .command('photon-breakeven')
      .description('the minimum speed-up Photon needs to make a cluster cheaper, with the reasoning'),
  )
    .option('--workers <n>', 'number of workers')
    .option('--machine-usd-per-hour <usd>', 'instead of the catalog: machine $/h per node')
    .option('--dbu-usd-per-hour <usd>', 'instead of the catalog: DBU $/h per node without Photon')
    .option('--photon-factor <factor>', 'instead of the catalog: Photon DBU multiplier', '2')
    .option('--json', 'print the result as JSON')
    .option('--data-dir <dir>', 'data directory with imported prices and overrides (env SETPOINT_DATA_DIR)')
    .addHelpText(
      'after',
      `
Examples:
  setpoint cost photon-breakeven --cloud aws --region us-east-1 --node-type m5.xlarge --workers 10
  setpoint cost photon-breakeven --cloud azure --region eastus --node-type Standard_E8s_v3 --workers 4 --spot
  setpoint cost photon-breakeven --machine-usd-per-hour 1 --dbu-usd-per-hour 1 --photon-factor 2 --workers 10

A run costs hourly rate × runtime and Photon raises only the DBU part of the rate, so Photon is cheaper
when standard runtime ÷ Photon runtime exceeds Photon rate ÷ standard rate: that ratio is the threshold.`,
    )
    .action((options) => {
      const workers = wholeNumber('--workers', required(options.workers, '--workers'));
      let result: PhotonBreakEven;
      if (options.machineUsdPerHour !== undefined || options.dbuUsdPerHour !== undefined) {
        const machine = Number(required(options.machineUsdPerHour, '--machine-usd-per-hour'));
        const dbu = positiveNumber(
          '--dbu-usd-per-hour',
          required(options.dbuUsdPerHour, '--dbu-usd-per-hour'),
        );
        const factor = positiveNumber('--photon-factor', options.photonFactor);
        if (!(machine >= 0))
          throw new ValidationError('INVALID_OPTION', '--machine-usd-per-hour must be ≥ 0');
        result = photonBreakEven([
          {
            count: workers + 1,
            machineUsdPerHour: machine,
            dbuUsdPerHour: dbu,
            photonDbuUsdPerHour: dbu * factor,
          },
        ]);
      } else {
        const spec = clusterSpecFrom(options);
        const dataDir = loadConfig({ dataDir: options.dataDir }).dataDir;
        result = photonBreakEvenForCluster(createCostModel(openPriceCatalog(dataDir)), spec, workers);
      }
      process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : renderBreakEven(result));
    });
}
