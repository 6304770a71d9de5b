import { describe, expect, it } from 'vitest';
import type { EmrChoice } from './emr-choice.js';
import { emrValidityFilters } from './emr-validity-filters.js';

const current: EmrChoice = {
  collection: 'instance-fleets',
  primaryType: 'm5.xlarge',
  workerType: 'r5.2xlarge',
  core: 2,
  task: 4,
  taskMarket: 'spot-with-fallback',
  volumes: [{ volumeType: 'gp3', sizeGb: 128, throughputMibps: 250 }],
  rootVolumeGb: null,
  longRunning: false,
  managedScaling: true,
};

/** The first filter that leaves a candidate out, with its reason. */
function verdict(
  filters: ReturnType<typeof emrValidityFilters>,
  choice: EmrChoice,
  allowed = true,
): [string, string] | null {
  for (const filter of filters) {
    const reason = filter.reject({ choice, allowed });
    if (reason !== null) return [filter.name, reason];
  }
  return null;
}

describe('EMR validity rules as candidate filters', () => {
  it('keeps every candidate whose launch EMR accepts', () => {
    const filters = emrValidityFilters({ facts: {}, current });
    for (const task of [0, 1, 8, 40])
      for (const taskMarket of ['on-demand', 'spot', 'spot-with-fallback'] as const)
        expect(verdict(filters, { ...current, task, taskMarket })).toBeNull();
  });

  it('leaves out a candidate EMR would refuse, named by the rule, with EMR’s sentence', () => {
    const filters = emrValidityFilters({
      facts: {
        supportedInstanceTypes: new Set(['m5.xlarge', 'r5.2xlarge', 'r5.4xlarge']),
        releaseLabel: 'emr-7.2.0',
        region: 'eu-west-1',
      },
      current,
    });
    expect(verdict(filters, { ...current, workerType: 'c5.4xlarge' })).toEqual([
      'instance-type-supported',
      '6 × c5.4xlarge (2 core, 4 task): The instance type c5.4xlarge is not supported by emr-7.2.0 in eu-west-1 (ListSupportedInstanceTypes).',
    ]);
    expect(
      verdict(filters, {
        ...current,
        workerType: 'r5.4xlarge',
        volumes: [{ volumeType: 'gp3', sizeGb: 2048 }],
      }),
    ).toEqual([
      'ebs-volumes',
      '6 × r5.4xlarge (2 core, 4 task): The volume size 2048 GiB is outside 1 - 1024.',
    ]);
    expect(
      verdict(filters, {
        ...current,
        volumes: [{ volumeType: 'gp2', sizeGb: 64, throughputMibps: 250 }],
        task: 3,
      })?.[0],
    ).toBe('ebs-volumes');
    // a candidate outside the project's settings is another filter's business
    expect(verdict(filters, { ...current, workerType: 'c5.4xlarge' }, false)).toBeNull();
  });

  it('does not hold against a candidate what the running cluster already does', () => {
    const running = { ...current, workerType: 'x2iedn.8xlarge' };
    const filters = emrValidityFilters({
      facts: {
        supportedInstanceTypes: new Set(['m5.xlarge', 'r5.2xlarge']),
        releaseLabel: 'emr-7.2.0',
        region: 'eu-west-1',
      },
      current: running,
    });
    expect(verdict(filters, running)).toBeNull();
    expect(verdict(filters, { ...running, task: 8 })).toBeNull();
    expect(verdict(filters, { ...running, workerType: 'c5.4xlarge' })?.[0]).toBe('instance-type-supported');
  });
});
