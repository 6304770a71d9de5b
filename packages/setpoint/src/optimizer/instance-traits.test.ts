import { describe, expect, it } from 'vitest';
import { instanceFamily, instanceTraits } from './instance-traits.js';
import type { Hardware, NodeStorage } from './types.js';

const standard = (instanceType: string): Hardware => ({ instanceType, engine: 'standard', storage: null });
const slowDisks: NodeStorage = { label: 'ebs-slow-2x500', speed: 'slow', volumes: 2, totalGb: 1000 };

describe('instanceTraits', () => {
  it.each([
    ['c4.2xlarge', { family: 'c4', series: 'c', generation: 4, processor: 'intel', localDisk: false }],
    ['c5n.2xlarge', { family: 'c5n', series: 'c', generation: 5, networkOptimized: true }],
    ['m5ad.xlarge', { family: 'm5ad', generation: 5, processor: 'amd', localDisk: true }],
    ['r6gd.4xlarge', { family: 'r6gd', series: 'r', generation: 6, processor: 'arm', localDisk: true }],
    ['c7g.xlarge', { family: 'c7g', generation: 7, processor: 'arm' }],
    ['m7i-flex.large', { family: 'm7i-flex', generation: 7, processor: 'intel' }],
    ['i3.xlarge', { family: 'i3', series: 'i', localDisk: true }],
    ['im4gn.large', { family: 'im4gn', series: 'im', generation: 4, processor: 'arm' }],
    ['Standard_E8ds_v4', { family: 'Standard_Eds_v4', series: 'E', generation: 4, localDisk: true }],
    ['Standard_DS3_v2', { family: 'Standard_DS_v2', series: 'DS', generation: 2, localDisk: true }],
    ['Standard_D16as_v5', { family: 'Standard_Das_v5', generation: 5, processor: 'amd', localDisk: false }],
    ['Standard_D8pds_v5', { family: 'Standard_Dpds_v5', processor: 'arm', localDisk: true }],
    ['n2-highmem-8', { family: 'n2-highmem', series: 'n', generation: 2 }],
    ['n2d-standard-4', { family: 'n2d-standard', processor: 'amd' }],
  ])('reads %s', (name, expected) => {
    expect(instanceTraits(standard(name))).toMatchObject(expected);
  });

  it('keeps the storage layout in the family, so layouts are told apart, and reads its speed from the field', () => {
    const slow = instanceTraits({ ...standard('c4.2xlarge'), storage: slowDisks });
    expect(slow).toMatchObject({
      family: 'c4+ebs-slow-2x500',
      series: 'c',
      generation: 4,
      storage: slowDisks,
    });
    const fast = { ...slowDisks, label: 'ebs-fast-2x500', speed: 'fast' as const };
    expect(instanceFamily({ ...standard('c4.2xlarge'), storage: fast })).not.toBe(
      instanceFamily({ ...standard('c4.2xlarge'), storage: slowDisks }),
    );
    expect(instanceFamily({ ...standard('c4.xlarge'), storage: slowDisks })).toBe(
      instanceFamily({ ...standard('c4.2xlarge'), storage: slowDisks }),
    );
    expect(instanceTraits(standard('c4.2xlarge')).storage).toBeNull();
  });

  it('treats Photon as a family of its own with the same hardware traits', () => {
    expect(instanceTraits({ ...standard('m5d.xlarge'), engine: 'photon' })).toMatchObject({
      family: 'photon-m5d',
      photon: true,
      localDisk: true,
      generation: 5,
    });
  });

  it('keeps an unknown name as its own family without claiming any trait', () => {
    expect(instanceTraits(standard('bigbox-64'))).toMatchObject({
      family: 'bigbox',
      series: '',
      generation: null,
      processor: 'unknown',
    });
    expect(instanceFamily(standard('m.large'))).toBe('m.large');
  });
});
