import type { ClusterFragment } from '@setpoint/api-contract/databricks';
import { availabilityOf, type DatabricksClusterShape } from './cluster-shape.js';

/** The `new_cluster` fields apply writes for a shape: only fields Setpoint manages. */
export function jobFragmentOf(shape: DatabricksClusterShape): ClusterFragment {
  const fragment: ClusterFragment = {
    node_type_id: shape.workerNodeType,
    driver_node_type_id: shape.driverNodeType,
    runtime_engine: shape.photon ? 'PHOTON' : 'STANDARD',
  };
  if (shape.autoscale) {
    fragment.autoscale = { min_workers: shape.autoscale.minWorkers, max_workers: shape.autoscale.maxWorkers };
  } else {
    fragment.num_workers = shape.workers;
  }
  const attributes = {
    availability: availabilityOf(shape.market, shape.cloud),
    first_on_demand: shape.firstOnDemand,
  };
  if (shape.cloud === 'azure') fragment.azure_attributes = attributes;
  else fragment.aws_attributes = attributes;
  return fragment;
}
