import {
  awsAttributesSchema,
  azureAttributesSchema,
  type NewCluster,
} from '@setpoint/api-contract/databricks';
import { ValidationError } from '@setpoint/foundation/errors';
import type { Market } from '../../../cost/cluster-spec.js';
import { configurationName } from '../../../optimizer/configuration-name.js';
import type { Hardware } from '../../../optimizer/types.js';
import type { VolumeSpec } from '../../../pricing/price-catalog.js';
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
  /**
   * The EBS volumes the job's own cluster attaches to each node (`aws_attributes.ebs_volume_*`): priced as
   * `storage` is, kept as the job sets them (a write leaves `aws_attributes`' volumes alone), so never in the
   * shape's id: Setpoint does not choose them.
   */
  jobVolumes?: VolumeSpec[];
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

/**
 * Whether a cluster runs Photon, the one reading of it (run facts, shapes, Discover): the engine it names;
 * a legacy `-photon-` runtime when it names none; else `otherwise` (what the event log said, or null).
 */
export function photonOf(
  cluster: { runtime_engine?: string | undefined; spark_version?: string | undefined } | null,
  otherwise: boolean | null,
): boolean | null {
  if (cluster?.runtime_engine) return cluster.runtime_engine === 'PHOTON';
  if (cluster?.spark_version?.includes('-photon-')) return true;
  return otherwise;
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
  const jobVolumes = cloud === 'aws' ? jobVolumesOf(spec?.aws_attributes) : [];
  return {
    cloud,
    workerNodeType,
    driverNodeType: spec?.driver_node_type_id ?? facts?.driverNodeTypeId ?? workerNodeType,
    workers,
    autoscale: autoscale ? { minWorkers: autoscale.minWorkers, maxWorkers: workers } : null,
    market,
    firstOnDemand: market === 'on-demand' ? 0 : (attributes?.first_on_demand ?? defaultFirstOnDemand),
    photon: photonOf(spec, facts?.photon ?? null) ?? false,
    ...(jobVolumes.length > 0 ? { jobVolumes } : {}),
  };
}

/**
 * A cluster's own EBS volumes per node as the cost engine prices them: GENERAL_PURPOSE_SSD is gp3 on
 * Databricks (with the IOPS and throughput the job asks for), THROUGHPUT_OPTIMIZED_HDD is st1.
 */
function jobVolumesOf(attributes: NewCluster['aws_attributes']): VolumeSpec[] {
  const parsed = awsAttributesSchema.safeParse(attributes ?? {});
  if (!parsed.success) return [];
  const { ebs_volume_count: count, ebs_volume_size: sizeGb, ebs_volume_type: type } = parsed.data;
  if (!count || !sizeGb) return [];
  if (type === 'THROUGHPUT_OPTIMIZED_HDD') return [{ type: 'st1', sizeGb, count }];
  return [
    {
      type: 'gp3',
      sizeGb,
      count,
      ...(parsed.data.ebs_volume_iops ? { iops: parsed.data.ebs_volume_iops } : {}),
      ...(parsed.data.ebs_volume_throughput ? { throughputMibps: parsed.data.ebs_volume_throughput } : {}),
    },
  ];
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
    photon: photonOf(spec, null) ?? false,
    autoscale: spec.autoscale !== undefined,
    spot: marketOfAvailability(attributesOf(spec, cloud)?.availability, cloud) !== 'on-demand',
    workers: spec.autoscale
      ? { min: spec.autoscale.min_workers, max: spec.autoscale.max_workers }
      : (spec.num_workers ?? 0),
  };
}

/**
 * What the optimizer learns a shape's hardware by: the worker node type and the engine (Photon is a
 * family of its own: its own speed, its own price). The node type's own disks are what it is; the EBS
 * volumes Setpoint attaches to a node type without instance store (`storage`) are in the shape's id, price
 * and description, not a family of their own for the model (`storage: null`).
 */
export function hardwareOfShape(shape: Pick<DatabricksClusterShape, 'workerNodeType' | 'photon'>): Hardware {
  return { instanceType: shape.workerNodeType, engine: shape.photon ? 'photon' : 'standard', storage: null };
}

/** Equal ids, the same cluster: the candidate id the optimizer learns and recommends by. */
export function shapeId(shape: DatabricksClusterShape): string {
  const size = shape.autoscale
    ? `${shape.autoscale.minWorkers}-${shape.autoscale.maxWorkers}`
    : `${shape.workers}`;
  return [
    configurationName(hardwareOfShape(shape)),
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
