import type { EmulatorState } from './emulator-state.js';
import type { NewClusterSettings } from './schema.js';

type Json = Record<string, unknown>;

/** A cluster on an instance pool runs the pool's node type in the pool's market. */
export function withInstancePool(cluster: NewClusterSettings, state: EmulatorState): NewClusterSettings {
  const spec = cluster as Json;
  const pool = state.instancePools.get(String(spec.instance_pool_id ?? ''));
  if (!pool) return cluster;
  const driverPool = state.instancePools.get(String(spec.driver_instance_pool_id ?? '')) ?? pool;
  return {
    ...cluster,
    node_type_id: pool.nodeTypeId,
    driver_node_type_id: cluster.driver_node_type_id ?? driverPool.nodeTypeId,
    ...(pool.awsAttributes ? { aws_attributes: { ...cluster.aws_attributes, ...pool.awsAttributes } } : {}),
    ...(pool.azureAttributes
      ? { azure_attributes: { ...cluster.azure_attributes, ...pool.azureAttributes } }
      : {}),
  } as NewClusterSettings;
}
