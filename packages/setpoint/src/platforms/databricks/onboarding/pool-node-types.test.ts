import { describe, expect, it } from 'vitest';
import type { InstancePool } from '../api/schema.js';
import { instancePools, withPoolNodeTypes } from './pool-node-types.js';

function poolsOf(pools: InstancePool[]) {
  const reads: string[] = [];
  const reader = instancePools({
    getInstancePool: async (id) => {
      reads.push(id);
      const pool = pools.find((entry) => entry.instance_pool_id === id);
      if (!pool) throw new Error(`Instance pool ${id} does not exist.`);
      return pool;
    },
  });
  return { reader, reads };
}

const workers: InstancePool = {
  instance_pool_id: 'pool-w',
  node_type_id: 'r5d.xlarge',
  aws_attributes: { availability: 'ON_DEMAND' },
};
const drivers: InstancePool = { instance_pool_id: 'pool-d', node_type_id: 'm5d.large' };

describe('withPoolNodeTypes', () => {
  it('gives a pool cluster the pool’s node type and market, and its driver the driver pool’s node type', async () => {
    const { reader } = poolsOf([workers, drivers]);
    const spec = await withPoolNodeTypes(
      {
        num_workers: 4,
        instance_pool_id: 'pool-w',
        driver_instance_pool_id: 'pool-d',
        aws_attributes: { availability: 'SPOT_WITH_FALLBACK', first_on_demand: 1 },
      },
      reader,
    );
    expect(spec).toMatchObject({
      node_type_id: 'r5d.xlarge',
      driver_node_type_id: 'm5d.large',
      aws_attributes: { availability: 'ON_DEMAND', first_on_demand: 1 },
    });
  });

  it('runs the driver on the worker pool’s node type without a driver pool, reading each pool once', async () => {
    const { reader, reads } = poolsOf([workers]);
    const first = await withPoolNodeTypes({ num_workers: 2, instance_pool_id: 'pool-w' }, reader);
    await withPoolNodeTypes({ num_workers: 8, instance_pool_id: 'pool-w' }, reader);
    expect(first.driver_node_type_id).toBe('r5d.xlarge');
    expect(reads).toEqual(['pool-w']);
  });

  it('leaves a cluster that names its node type as it is', async () => {
    const { reader, reads } = poolsOf([]);
    const spec = { node_type_id: 'i3.xlarge', num_workers: 2 };
    expect(await withPoolNodeTypes(spec, reader)).toBe(spec);
    expect(reads).toEqual([]);
  });

  it('names the pool it could not read', async () => {
    const { reader } = poolsOf([]);
    await expect(withPoolNodeTypes({ instance_pool_id: 'gone' }, reader)).rejects.toThrow(
      'the instance pool gone could not be read: Instance pool gone does not exist.',
    );
  });
});
