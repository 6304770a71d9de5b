import { describe, expect, it } from 'vitest';
import { compareGroups, groupsOfRunJobFlow, groupsOfRunReport } from '../../web/src/pages/emr/emr-groups.js';

describe("the EMR tab's node groups", () => {
  const report = {
    shape: {
      kind: 'instance-groups',
      groups: [
        { role: 'TASK', instanceType: 'r5.2xlarge', count: 6, market: 'SPOT', volumes: [] },
        { role: 'MASTER', instanceType: 'm5.xlarge', count: 1, market: 'ON_DEMAND', volumes: [] },
        { role: 'CORE', instanceType: 'r5.2xlarge', count: 2, market: 'ON_DEMAND', volumes: [] },
      ],
    },
  };

  it('reads a run report and a RunJobFlow block into rows by role, and marks what changes', () => {
    const current = groupsOfRunReport(report);
    expect(current.map((row) => row.role)).toEqual(['MASTER', 'CORE', 'TASK']);
    const recommended = groupsOfRunJobFlow({
      Instances: {
        InstanceGroups: [
          { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1, Market: 'ON_DEMAND' },
          { InstanceRole: 'CORE', InstanceType: 'r5.2xlarge', InstanceCount: 2 },
          { InstanceRole: 'TASK', InstanceType: 'r5.xlarge', InstanceCount: 4, Market: 'SPOT' },
        ],
      },
    });
    expect(recommended[1]).toEqual({ role: 'CORE', nodes: 'r5.2xlarge × 2', market: 'ON_DEMAND' });
    expect(compareGroups(current, recommended).map((change) => [change.role, change.changed])).toEqual([
      ['MASTER', false],
      ['CORE', false],
      ['TASK', true],
    ]);
  });

  it('shows a group only one side has, fleets by types and targets, and nothing for an unknown shape', () => {
    const fleets = groupsOfRunJobFlow({
      Instances: {
        InstanceFleets: [
          {
            InstanceFleetType: 'CORE',
            TargetOnDemandCapacity: 2,
            InstanceTypeConfigs: [{ InstanceType: 'r5.2xlarge' }, { InstanceType: 'r6i.2xlarge' }],
          },
        ],
      },
    });
    expect(fleets).toEqual([
      { role: 'CORE', nodes: 'r5.2xlarge, r6i.2xlarge', market: '2 on-demand + 0 spot units' },
    ]);
    const changes = compareGroups(groupsOfRunReport(report), fleets);
    expect(changes.find((change) => change.role === 'TASK')).toMatchObject({
      recommended: null,
      changed: true,
    });
    expect(groupsOfRunReport({ new_cluster: {} })).toEqual([]);
    expect(groupsOfRunJobFlow(null)).toEqual([]);
  });
});
