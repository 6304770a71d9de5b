import { describe, expect, it } from 'vitest';
import type { Cluster, InstanceGroup } from '../api/schema.js';
import { planResize } from './resize-plan.js';

const cluster = {
  Id: 'j-LONG',
  Name: 'shared-rollups',
  Status: { State: 'WAITING', Timeline: { createdAt: 1, readyAt: 2, endedAt: null } },
  AutoTerminate: false,
  InstanceCollectionType: 'INSTANCE_GROUP',
} as unknown as Cluster;

const group = (id: string, role: InstanceGroup['InstanceGroupType'], count: number, market?: 'SPOT') =>
  ({
    Id: id,
    InstanceGroupType: role,
    InstanceType: 'c5.xlarge',
    RequestedInstanceCount: count,
    ...(market ? { Market: market } : {}),
  }) as InstanceGroup;

const groups = [group('ig-m', 'MASTER', 1), group('ig-c', 'CORE', 2), group('ig-t', 'TASK', 12, 'SPOT')];

describe('a resize planned from a recommendation', () => {
  it('reads a group without a market as on-demand, as EMR does, and resizes only the task group', () => {
    const plan = planResize({
      cluster,
      groups,
      fleets: [],
      currentScaling: null,
      stepRunning: false,
      recommended: {
        Instances: {
          InstanceGroups: [
            { InstanceRole: 'MASTER', InstanceType: 'c5.xlarge', InstanceCount: 1 },
            { InstanceRole: 'CORE', InstanceType: 'c5.xlarge', InstanceCount: 2 },
            { InstanceRole: 'TASK', InstanceType: 'c5.xlarge', InstanceCount: 6, Market: 'SPOT' },
          ],
        },
      },
    });
    expect(plan.actions).toEqual([
      { kind: 'instance-group', instanceGroupId: 'ig-t', role: 'TASK', from: 12, to: 6 },
    ]);
  });

  it('still refuses a market change, naming both markets', () => {
    expect(() =>
      planResize({
        cluster,
        groups,
        fleets: [],
        currentScaling: null,
        stepRunning: false,
        recommended: {
          Instances: {
            InstanceGroups: [{ InstanceRole: 'TASK', InstanceType: 'c5.xlarge', InstanceCount: 6 }],
          },
        },
      }),
    ).toThrow(
      'the TASK group of j-LONG would change market (SPOT → ON_DEMAND): that is a new launch configuration',
    );
  });
});
