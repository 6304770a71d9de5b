import { describe, expect, it } from 'vitest';
import type { DatabricksClusterShape } from './cluster-shape.js';
import { instancePoolFilter } from './instance-pool-filter.js';

const current: DatabricksClusterShape = {
  cloud: 'aws',
  workerNodeType: 'r5d.xlarge',
  driverNodeType: 'r5d.xlarge',
  workers: 8,
  autoscale: null,
  market: 'spot-with-fallback',
  firstOnDemand: 1,
  photon: false,
};

describe('the instance pool filter', () => {
  it('keeps an instance-pool cluster on the pool: node type, market and driver stay', () => {
    const filter = instancePoolFilter('pool-1', current);
    expect(filter.reject({ choice: { ...current, workers: 4 }, allowed: true })).toBeNull();
    expect(filter.reject({ choice: { ...current, workerNodeType: 'r5d.2xlarge' }, allowed: true })).toMatch(
      /instance pool pool-1, whose node type is r5d\.xlarge/,
    );
    expect(
      filter.reject({ choice: { ...current, market: 'on-demand', firstOnDemand: 0 }, allowed: true }),
    ).toMatch(/instance pool pool-1 decides the market/);
  });
});
