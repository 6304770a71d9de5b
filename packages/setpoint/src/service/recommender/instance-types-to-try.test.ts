import { describe, expect, it } from 'vitest';
import { siblingFamilies } from '../../pricing/instance-families.js';
import type { InstanceTypeEntry } from '../../pricing/schema.js';
import { instanceTypesToTry } from './instance-types-to-try.js';

const entry = (
  cloud: InstanceTypeEntry['cloud'],
  instanceType: string,
  family: string,
  vcpus: number,
  arch: InstanceTypeEntry['arch'] = 'x86_64',
): InstanceTypeEntry => ({
  cloud,
  instanceType,
  family,
  vcpus,
  memoryGib: vcpus * 4,
  arch,
  localNvmeGb: 0,
  network: '',
  effectiveDate: '2026-01-01',
  source: 'test',
});

const catalog = [
  entry('aws', 'm5d.xlarge', 'm5d', 4),
  entry('aws', 'm5d.16xlarge', 'm5d', 64),
  entry('aws', 'c5d.2xlarge', 'c5d', 8),
  entry('aws', 'r5d.xlarge', 'r5d', 4),
  entry('aws', 'm5.xlarge', 'm5', 4),
  entry('aws', 'r6gd.xlarge', 'r6gd', 4, 'arm64'),
  entry('aws', 'i3.xlarge', 'i3', 4),
  entry('aws', 'i3.large', 'i3', 2),
  entry('azure', 'Standard_E8ds_v5', 'Edsv5', 8),
  entry('azure', 'Standard_D8ds_v5', 'Ddsv5', 8),
  entry('azure', 'Standard_F8s_v2', 'Fsv2', 8),
];
const none = { allowedInstanceTypes: [], allowedInstanceFamilies: [] };
const names = (entries: readonly InstanceTypeEntry[]) => entries.map((found) => found.instanceType).sort();

describe('siblingFamilies', () => {
  it('pairs the general-purpose, compute and memory families of one generation and variant', () => {
    expect(siblingFamilies({ cloud: 'aws', family: 'c5d' })).toEqual(['m5d', 'c5d', 'r5d']);
    expect(siblingFamilies({ cloud: 'aws', family: 'm7i-flex' })).toEqual([
      'm7i-flex',
      'c7i-flex',
      'r7i-flex',
    ]);
    expect(siblingFamilies({ cloud: 'azure', family: 'Edsv5' })).toEqual(['Ddsv5', 'Edsv5', 'Fdsv5']);
  });

  it('leaves a family of another class alone, and an AWS class letter not followed by a generation', () => {
    expect(siblingFamilies({ cloud: 'aws', family: 'i3' })).toEqual(['i3']);
    expect(siblingFamilies({ cloud: 'aws', family: 'mac1' })).toEqual(['mac1']);
    expect(siblingFamilies({ cloud: 'azure', family: 'Lsv3' })).toEqual(['Lsv3']);
  });
});

describe('instanceTypesToTry', () => {
  it('tries the current family and its siblings, on the same architecture and within 4–32 vCPUs', () => {
    expect(names(instanceTypesToTry(catalog, 'aws', none, 'm5d.xlarge'))).toEqual([
      'c5d.2xlarge',
      'm5d.xlarge',
      'r5d.xlarge',
    ]);
    expect(names(instanceTypesToTry(catalog, 'azure', none, 'Standard_E8ds_v5'))).toEqual([
      'Standard_D8ds_v5',
      'Standard_E8ds_v5',
    ]);
  });

  it('keeps the current type even outside the size range', () => {
    expect(names(instanceTypesToTry(catalog, 'aws', none, 'i3.large'))).toEqual(['i3.large', 'i3.xlarge']);
  });

  it('tries the listed types as they are, else the listed families within the size range', () => {
    const listed = {
      allowedInstanceTypes: ['m5d.16xlarge', 'Standard_F8s_v2'],
      allowedInstanceFamilies: ['i3'],
    };
    expect(names(instanceTypesToTry(catalog, 'aws', listed, 'm5d.xlarge'))).toEqual(['m5d.16xlarge']);
    const families = { allowedInstanceTypes: [], allowedInstanceFamilies: ['m5d', 'm5'] };
    expect(names(instanceTypesToTry(catalog, 'aws', families, 'r5d.xlarge'))).toEqual([
      'm5.xlarge',
      'm5d.xlarge',
    ]);
  });

  it('has nothing to try around a current type the catalog does not know', () => {
    expect(instanceTypesToTry(catalog, 'aws', none, 'x9.xlarge')).toEqual([]);
  });
});
