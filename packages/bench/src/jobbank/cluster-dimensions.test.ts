import { describe, expect, it } from 'vitest';
import { changedDimensions, clusterDimensionsOf } from './cluster-dimensions.js';

const cluster = (driver: string | undefined, ebs?: Record<string, unknown>) => ({
  clusterConfig: {
    node_type_id: 'm5.xlarge',
    ...(driver ? { driver_node_type_id: driver } : {}),
    aws_attributes: { availability: 'ON_DEMAND', ...ebs },
  },
});

describe('the drivers and volumes each project ran on', () => {
  it('reads the driver (the worker type when none is named) and the volumes run by run', () => {
    const volumes = { ebs_volume_type: 'GENERAL_PURPOSE_SSD', ebs_volume_count: 1, ebs_volume_size: 100 };
    const record = clusterDimensionsOf('Spill-heavy sort', 1, [
      cluster(undefined, volumes),
      cluster('c5.xlarge', volumes),
      cluster('c5.xlarge', { ...volumes, ebs_volume_throughput: 250, ebs_volume_iops: 3000 }),
    ]);
    expect(record.drivers).toEqual(['m5.xlarge', 'c5.xlarge', 'c5.xlarge']);
    expect(record.volumes).toEqual([
      '1 × 100 GiB GENERAL_PURPOSE_SSD',
      '1 × 100 GiB GENERAL_PURPOSE_SSD',
      '1 × 100 GiB GENERAL_PURPOSE_SSD 3000 IOPS 250 MiB/s',
    ]);
    expect(record.driverChanged).toBe(true);
    expect(record.volumesChanged).toBe(true);
  });

  it('names the jobs whose driver or volumes changed, once each', () => {
    const steady = clusterDimensionsOf('Skewed join', 1, [
      cluster(undefined),
      cluster('m5.xlarge'),
      { clusterConfig: null },
    ]);
    expect(steady.driverChanged).toBe(false);
    expect(steady.volumes).toEqual(['none', 'none']);
    const moved = clusterDimensionsOf('IO-bound scan', 1, [cluster('m5d.xlarge'), cluster('c5d.xlarge')]);
    const movedAgain = { ...moved, seed: 2 };
    expect(changedDimensions([steady, moved, movedAgain])).toEqual({
      driverChangedJobs: ['IO-bound scan'],
      volumesChangedJobs: [],
    });
  });
});
