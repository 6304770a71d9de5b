import { ValidationError } from '@setpoint/foundation/errors';
import { type Cloud, findNodeType, type NodeType } from './node-types.js';

export type Availability = 'ON_DEMAND' | 'SPOT' | 'SPOT_WITH_FALLBACK';
export type EbsVolumeType = 'GENERAL_PURPOSE_SSD' | 'THROUGHPUT_OPTIMIZED_HDD';

/** What the physics needs from a Databricks `new_cluster`, already validated and defaulted. */
export interface SimClusterSpec {
  nodeType: NodeType;
  driverNodeType: NodeType;
  workers: { kind: 'fixed'; count: number } | { kind: 'autoscale'; min: number; max: number };
  availability: Availability;
  firstOnDemand: number;
  ebs: { type: EbsVolumeType; count: number; sizeGb: number };
  photon: boolean;
  sparkVersion: string;
  sparkConf: Record<string, string>;
}

/** The subset of the REST `new_cluster` shape the simulator reads; extra fields are ignored. */
export interface NewClusterLike {
  node_type_id?: string | undefined;
  driver_node_type_id?: string | undefined;
  num_workers?: number | undefined;
  autoscale?: { min_workers?: number | undefined; max_workers?: number | undefined } | undefined;
  spark_version?: string | undefined;
  runtime_engine?: string | undefined;
  spark_conf?: Record<string, string> | undefined;
  aws_attributes?:
    | {
        availability?: string | undefined;
        first_on_demand?: number | undefined;
        ebs_volume_type?: string | undefined;
        ebs_volume_count?: number | undefined;
        ebs_volume_size?: number | undefined;
      }
    | undefined;
  azure_attributes?: { availability?: string | undefined; first_on_demand?: number | undefined } | undefined;
}

function requireNodeType(id: string | undefined, field: string): NodeType {
  if (!id) throw new ValidationError('INVALID_PARAMETER_VALUE', `Missing required field: ${field}`);
  const type = findNodeType(id);
  if (!type) throw new ValidationError('INVALID_PARAMETER_VALUE', `Node type ${id} is not supported.`);
  return type;
}

function availabilityFor(cloud: Cloud, spec: NewClusterLike): { availability: Availability; first: number } {
  if (cloud === 'Azure') {
    const raw = spec.azure_attributes?.availability ?? 'ON_DEMAND_AZURE';
    const availability: Availability =
      raw === 'SPOT_AZURE' ? 'SPOT' : raw === 'SPOT_WITH_FALLBACK_AZURE' ? 'SPOT_WITH_FALLBACK' : 'ON_DEMAND';
    return { availability, first: spec.azure_attributes?.first_on_demand ?? 1 };
  }
  const raw = spec.aws_attributes?.availability ?? 'SPOT_WITH_FALLBACK';
  const availability: Availability = raw === 'SPOT' || raw === 'ON_DEMAND' ? raw : 'SPOT_WITH_FALLBACK';
  return { availability, first: spec.aws_attributes?.first_on_demand ?? 1 };
}

export function isPhotonSpec(spec: NewClusterLike): boolean {
  if (spec.runtime_engine === 'PHOTON') return true;
  if (spec.runtime_engine === 'STANDARD') return false;
  return (spec.spark_version ?? '').includes('-photon-');
}

export function toSimClusterSpec(spec: NewClusterLike): SimClusterSpec {
  const nodeType = requireNodeType(spec.node_type_id, 'node_type_id');
  const driverNodeType = spec.driver_node_type_id
    ? requireNodeType(spec.driver_node_type_id, 'driver_node_type_id')
    : nodeType;
  let workers: SimClusterSpec['workers'];
  if (spec.autoscale) {
    const min = spec.autoscale.min_workers ?? 1;
    const max = spec.autoscale.max_workers ?? min;
    if (min < 0 || max < min) {
      throw new ValidationError('INVALID_PARAMETER_VALUE', 'autoscale.max_workers must be >= min_workers');
    }
    workers = { kind: 'autoscale', min, max };
  } else {
    workers = { kind: 'fixed', count: spec.num_workers ?? 0 };
  }
  const { availability, first } = availabilityFor(nodeType.cloud, spec);
  const aws = spec.aws_attributes;
  const ebsType: EbsVolumeType =
    aws?.ebs_volume_type === 'THROUGHPUT_OPTIMIZED_HDD' ? 'THROUGHPUT_OPTIMIZED_HDD' : 'GENERAL_PURPOSE_SSD';
  return {
    nodeType,
    driverNodeType,
    workers,
    availability,
    firstOnDemand: first,
    ebs: { type: ebsType, count: aws?.ebs_volume_count ?? 0, sizeGb: aws?.ebs_volume_size ?? 0 },
    photon: isPhotonSpec(spec),
    sparkVersion: spec.spark_version ?? '15.4.x-scala2.12',
    sparkConf: spec.spark_conf ?? {},
  };
}
