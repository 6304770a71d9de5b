import { isAppError } from '@setpoint/foundation/errors';
import type { DatabricksClient } from '../api/client.js';
import type { InstancePool, NewClusterSpec } from '../api/schema.js';

/** An instance pool by id; rejects, naming the pool, when it cannot be read. */
export type PoolReader = (poolId: string) => Promise<InstancePool>;

/** The instance pools of one workspace, each read once (`instance-pools/get`). */
export function instancePools(client: Pick<DatabricksClient, 'getInstancePool'>): PoolReader {
  const known = new Map<string, Promise<InstancePool>>();
  return (poolId) => {
    let pool = known.get(poolId);
    if (!pool) {
      pool = client.getInstancePool(poolId).catch((error: unknown) => {
        throw new Error(
          `the instance pool ${poolId} could not be read: ${isAppError(error) || error instanceof Error ? error.message : String(error)}`,
        );
      });
      known.set(poolId, pool);
    }
    return pool;
  };
}

/**
 * A job cluster drawn from an instance pool names no node type of its own: its workers run the pool's
 * node type in the pool's market, its driver the driver pool's node type (else the worker pool's), as
 * Databricks launches it. The spec comes back with those filled in, so it is priced and sized like any
 * other; a spec that names its node type, or no pool, is returned as it is.
 */
export async function withPoolNodeTypes(spec: NewClusterSpec, pools: PoolReader): Promise<NewClusterSpec> {
  const poolId = spec.instance_pool_id;
  if (spec.node_type_id || typeof poolId !== 'string') return spec;
  const pool = await pools(poolId);
  const driverPoolId = spec.driver_instance_pool_id;
  const driverNodeType =
    spec.driver_node_type_id ??
    (typeof driverPoolId === 'string' ? (await pools(driverPoolId)).node_type_id : pool.node_type_id);
  return {
    ...spec,
    node_type_id: pool.node_type_id,
    driver_node_type_id: driverNodeType,
    ...(pool.aws_attributes && { aws_attributes: { ...spec.aws_attributes, ...pool.aws_attributes } }),
    ...(pool.azure_attributes && {
      azure_attributes: { ...spec.azure_attributes, ...pool.azure_attributes },
    }),
  };
}
