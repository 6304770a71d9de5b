import {
  awsAttributesSchema,
  azureAttributesSchema,
  type NewCluster,
} from '@setpoint/api-contract/databricks';
import { ValidationError } from '@setpoint/foundation/errors';
import type { Market } from '../../../cost/cluster-spec.js';
import type { Cloud } from '../../../pricing/schema.js';
import type { ClusterFacts } from '../../../service/runs/run-records.js';
import { describeStorage, type EbsStorage } from './ebs-storage.js';

/**
 * One Databricks job cluster as Setpoint reasons about it: what the optimizer varies, the cost engine
 * prices and apply writes back. A `new_cluster` is parsed into it once, at the edge, by
 * `shapeOfCluster`; everything downstream reads the shape, never the attributes.
 */
export interface DatabricksClusterShape {
  cloud: Cloud;
  workerNodeType: string;
  driverNodeType: string;
  /** Fixed size, or the autoscale maximum (what the job may use at its widest). */
  workers: number;
  autoscale: { minWorkers: number; maxWorkers: number } | null;
  market: Market;
  /** Nodes kept on-demand whatever the market, the driver first; 0 when the whole cluster is on-demand. */
  firstOnDemand: number;
  photon: boolean;
  /**
   * EBS volumes Setpoint writes for each node, when the node type has no instance store and the job's
   * cluster brings no volumes of its own (`ebs-storage.ts`); absent or null: the node type's own disks, or
   * the job's own EBS settings, which are kept as they are.
   */
  storage?: EbsStorage | null;
}

/** Databricks' `first_on_demand` when a cluster does not say: the driver on-demand, the workers on the market. */
export const defaultFirstOnDemand = 1;

/**
 * The market when a cluster names no `availability`: on AWS, Databricks fills in SPOT_WITH_FALLBACK;
 * Azure documents no default, and on-demand is what an Azure cluster gets unless it asks for spot.
 */
const defaultMarkets: Record<Cloud, Market> = { aws: 'spot-with-fallback', azure: 'on-demand' };

const availabilityNames: Record<Market, string> = {
  'on-demand': 'ON_DEMAND',
  spot: 'SPOT',
  'spot-with-fallback': 'SPOT_WITH_FALLBACK',
};

/** `SPOT_WITH_FALLBACK[_AZURE]` → spot-with-fallback, `SPOT[_AZURE]` → spot, `ON_DEMAND[_AZURE]` → on-demand. */
export function marketOfAvailability(availability: string | null | undefined, cloud: Cloud): Market {
  const value = (availability ?? '').toUpperCase();
  if (!value) return defaultMarkets[cloud];
  if (value.startsWith('SPOT_WITH_FALLBACK')) return 'spot-with-fallback';
  if (value.startsWith('SPOT')) return 'spot';
  return 'on-demand';
}

/** The `availability` value of a market on a cloud (Azure's carry `_AZURE`). */
export function availabilityOf(market: Market, cloud: Cloud): string {
  return `${availabilityNames[market]}${cloud === 'azure' ? '_AZURE' : ''}`;
}

/** The cloud's typed attributes of a `new_cluster`, parsed with the API contract's schema. */
function attributesOf(spec: NewCluster | null, cloud: Cloud) {
  const raw = cloud === 'azure' ? spec?.azure_attributes : spec?.aws_attributes;
  if (raw === undefined) return undefined;
  const parsed = (cloud === 'azure' ? azureAttributesSchema : awsAttributesSchema).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(
      'CLUSTER_ATTRIBUTES_INVALID',
      `invalid ${cloud}_attributes: ${issue ? `${issue.path.join('.')} ${issue.message}` : 'validation failed'}`,
    );
  }
  return parsed.data;
}

/** Photon when the engine says so; a legacy `-photon-` runtime counts when no engine is named. */
function photonOf(spec: NewCluster | null, facts: ClusterFacts | null): boolean {
  if (spec?.runtime_engine) return spec.runtime_engine === 'PHOTON';
  if (spec?.spark_version?.includes('-photon-')) return true;
  return facts?.photon ?? false;
}

/**
 * The shape of a cluster: its `new_cluster` where it speaks, the run's facts (event-log hints) where it
 * is silent, `observedWorkers` (executors seen in the log) as the last word on size.
 */
export function shapeOfCluster(
  spec: NewCluster | null,
  cloud: Cloud,
  facts: ClusterFacts | null = null,
  observedWorkers = 0,
): DatabricksClusterShape {
  const workerNodeType = spec?.node_type_id ?? facts?.nodeTypeId;
  if (!workerNodeType) {
    throw new ValidationError(
      'RUN_NODE_TYPE_UNKNOWN',
      'the cluster names no worker node type: upload a cluster_report or an event log with Databricks cluster tags',
    );
  }
  const autoscale = spec?.autoscale
    ? { minWorkers: spec.autoscale.min_workers, maxWorkers: spec.autoscale.max_workers }
    : (facts?.autoscale ?? null);
  const workers = Math.max(
    1,
    autoscale?.maxWorkers ?? spec?.num_workers ?? facts?.workers ?? observedWorkers,
  );
  const attributes = attributesOf(spec, cloud);
  const market = marketOfAvailability(attributes?.availability ?? facts?.availability, cloud);
  return {
    cloud,
    workerNodeType,
    driverNodeType: spec?.driver_node_type_id ?? facts?.driverNodeTypeId ?? workerNodeType,
    workers,
    autoscale: autoscale ? { minWorkers: autoscale.minWorkers, maxWorkers: workers } : null,
    market,
    firstOnDemand: market === 'on-demand' ? 0 : (attributes?.first_on_demand ?? defaultFirstOnDemand),
    photon: photonOf(spec, facts),
  };
}

/** What Discover shows of a job cluster; unlike a shape, it needs no node type (policy clusters have none). */
export interface ClusterTraits {
  photon: boolean;
  autoscale: boolean;
  spot: boolean;
  workers: number | { min: number; max: number };
}

export function clusterTraits(spec: NewCluster, cloud: Cloud): ClusterTraits {
  return {
    photon: photonOf(spec, null),
    autoscale: spec.autoscale !== undefined,
    spot: marketOfAvailability(attributesOf(spec, cloud)?.availability, cloud) !== 'on-demand',
    workers: spec.autoscale
      ? { min: spec.autoscale.min_workers, max: spec.autoscale.max_workers }
      : (spec.num_workers ?? 0),
  };
}

/** The optimizer's instance name for a shape: Photon is a family of its own (its own speed, its own price). */
export function optimizerInstanceType(
  shape: Pick<DatabricksClusterShape, 'workerNodeType' | 'photon'>,
): string {
  return shape.photon ? `photon-${shape.workerNodeType}` : shape.workerNodeType;
}

/** Equal ids, the same cluster: the candidate id the optimizer learns and recommends by. */
export function shapeId(shape: DatabricksClusterShape): string {
  const size = shape.autoscale
    ? `${shape.autoscale.minWorkers}-${shape.autoscale.maxWorkers}`
    : `${shape.workers}`;
  return [
    optimizerInstanceType(shape),
    size,
    shape.market,
    `driver=${shape.driverNodeType}`,
    `fod=${shape.firstOnDemand}`,
    ...(shape.storage ? [`ebs=${shape.storage.count}x${shape.storage.sizeGib}`] : []),
  ].join('|');
}

const marketWords: Record<Market, string> = {
  'on-demand': 'on-demand',
  spot: 'spot',
  'spot-with-fallback': 'spot with fallback',
};

/** "8 × r5d.xlarge, spot with fallback", "2–8 × m5d.xlarge (autoscaling), on-demand, Photon". */
export function describeShape(shape: DatabricksClusterShape): string {
  const size = shape.autoscale
    ? `${shape.autoscale.minWorkers}–${shape.autoscale.maxWorkers} × ${shape.workerNodeType} (autoscaling)`
    : `${shape.workers} × ${shape.workerNodeType}`;
  const storage = shape.storage ? ` with ${describeStorage(shape.storage)} (${shape.storage.basis})` : '';
  return `${size}${storage}, ${marketWords[shape.market]}${shape.photon ? ', Photon' : ''}`;
}
