import type { ClusterCostSpec } from '../../../cost/cluster-spec.js';
import type { VolumeSpec } from '../../../pricing/price-catalog.js';
import type { ComputeType, Plan } from '../../../pricing/schema.js';
import { databricksBilling } from './billing.js';
import type { DatabricksClusterShape } from './cluster-shape.js';
import { volumesOf } from './ebs-storage.js';

export interface DatabricksBillingContext {
  region: string;
  plan: Plan;
  compute: ComputeType;
}

/**
 * A shape as the cost engine prices it: Databricks billing (DBUs on top of the VMs), the EBS volumes Setpoint
 * attaches and the ones the job's cluster attaches itself.
 */
export function costSpecOf(
  shape: DatabricksClusterShape,
  billing: DatabricksBillingContext,
): ClusterCostSpec {
  return {
    cloud: shape.cloud,
    region: billing.region,
    billing: databricksBilling({ plan: billing.plan, compute: billing.compute, photon: shape.photon }),
    driverNodeType: shape.driverNodeType,
    workerNodeType: shape.workerNodeType,
    market: shape.market,
    firstOnDemand: shape.firstOnDemand,
    volumesPerNode: volumesPerNodeOf(shape),
  };
}

/** Every EBS volume on each node of the shape: the ones Setpoint attaches and the job's own. */
export function volumesPerNodeOf(shape: DatabricksClusterShape): VolumeSpec[] {
  return [...volumesOf(shape.storage), ...(shape.jobVolumes ?? [])];
}
