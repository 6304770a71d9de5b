import { describe, expect, it } from 'vitest';
import { configurationName, hardwareOfName } from './configuration-name.js';

describe('a configuration name', () => {
  it('reads the engine and the storage layout a sweep dataset writes into its instance type', () => {
    expect(hardwareOfName('c4.2xlarge+ebs-slow-2x500')).toEqual({
      instanceType: 'c4.2xlarge',
      engine: 'standard',
      storage: { label: 'ebs-slow-2x500', speed: 'slow', volumes: 2, totalGb: 1000 },
    });
    expect(hardwareOfName('m5.xlarge+ebs-gp3-1x250').storage).toMatchObject({ speed: 'fast', volumes: 1 });
    expect(hardwareOfName('m5.xlarge+raid0').storage).toMatchObject({ speed: 'unknown', volumes: null });
    expect(hardwareOfName('photon-m5d.xlarge')).toEqual({
      instanceType: 'm5d.xlarge',
      engine: 'photon',
      storage: null,
    });
    expect(hardwareOfName('Standard_E8ds_v4')).toEqual({
      instanceType: 'Standard_E8ds_v4',
      engine: 'standard',
      storage: null,
    });
  });

  it('is written from the fields and reads back as the same fields', () => {
    for (const name of [
      'r5d.xlarge',
      'photon-r5d.xlarge',
      'c5.xlarge+ebs-hdd-1x500',
      'photon-c5.xlarge+ebs-ssd-4x250',
    ])
      expect(configurationName(hardwareOfName(name))).toBe(name);
  });
});
