import { describe, expect, it } from 'vitest';
import type { EmrRunReport } from '../runs/emr-run-report.js';
import { launchDifferences, launchRecordOf } from './launched-cluster.js';

const groups = (core: number, task: number): EmrRunReport['shape'] => ({
  kind: 'instance-groups',
  groups: [
    { role: 'MASTER', instanceType: 'm5.xlarge', count: 1, market: 'ON_DEMAND', volumes: [] },
    { role: 'CORE', instanceType: 'r5.2xlarge', count: core, market: 'ON_DEMAND', volumes: [] },
    { role: 'TASK', instanceType: 'r5.2xlarge', count: task, market: 'SPOT', volumes: [] },
  ],
  managedScaling: null,
});

const report = (shape: EmrRunReport['shape']) => ({ cluster: { id: 'j-LAUNCHED' }, shape }) as EmrRunReport;

const recommended = (core: number, task: number, extra: Record<string, unknown> = {}) => ({
  Instances: {
    InstanceGroups: [
      {
        Name: 'Primary',
        InstanceRole: 'MASTER',
        Market: 'ON_DEMAND',
        InstanceType: 'm5.xlarge',
        InstanceCount: 1,
      },
      {
        Name: 'Core',
        InstanceRole: 'CORE',
        Market: 'ON_DEMAND',
        InstanceType: 'r5.2xlarge',
        InstanceCount: core,
      },
      ...(task > 0
        ? [
            {
              Name: 'Task',
              InstanceRole: 'TASK',
              Market: 'SPOT',
              InstanceType: 'r5.2xlarge',
              InstanceCount: task,
            },
          ]
        : []),
    ],
  },
  ...extra,
});

describe('a launched EMR cluster against its recommendation', () => {
  it('records what was launched in a person’s words, the same for every launch of it', () => {
    const record = launchRecordOf(report(groups(2, 4)));
    expect(record).toMatchObject({
      clusterId: 'j-LAUNCHED',
      actions: [],
      launched: '1 × m5.xlarge primary, 2 × r5.2xlarge core, 4 × r5.2xlarge spot task',
    });
    // an empty task group is not part of the cluster
    expect(launchRecordOf(report(groups(2, 0))).launched).toBe('1 × m5.xlarge primary, 2 × r5.2xlarge core');
  });

  it('finds no difference when the launch is as recommended', () => {
    expect(launchDifferences(report(groups(2, 4)), recommended(2, 4))).toEqual([]);
    expect(launchDifferences(report(groups(2, 0)), recommended(2, 0))).toEqual([]);
  });

  it('names each role that differs, and managed-scaling limits', () => {
    expect(launchDifferences(report(groups(3, 4)), recommended(2, 4))).toEqual([
      'core: launched 3 × r5.2xlarge, recommended 2 × r5.2xlarge',
    ]);
    expect(launchDifferences(report(groups(2, 0)), recommended(2, 4))).toEqual([
      'task: launched none, recommended 4 × r5.2xlarge spot',
    ]);
    const scaling = {
      ManagedScalingPolicy: {
        ComputeLimits: { UnitType: 'Instances', MinimumCapacityUnits: 2, MaximumCapacityUnits: 6 },
      },
    };
    expect(launchDifferences(report(groups(2, 4)), recommended(2, 4, scaling))).toEqual([
      'managed scaling: launched none, recommended 2–6 Instances',
    ]);
  });

  it('says so when the recommendation is fleets and the launch groups, or not EMR at all', () => {
    const fleets = {
      Instances: {
        InstanceFleets: [
          {
            InstanceFleetType: 'MASTER',
            TargetOnDemandCapacity: 1,
            InstanceTypeConfigs: [{ InstanceType: 'm5.xlarge' }],
          },
          {
            InstanceFleetType: 'CORE',
            TargetOnDemandCapacity: 2,
            InstanceTypeConfigs: [{ InstanceType: 'r5.2xlarge' }],
          },
        ],
      },
    };
    expect(launchDifferences(report(groups(2, 0)), fleets)).toEqual([
      'launched instance-groups, recommended instance-fleets',
    ]);
    expect(launchDifferences(report(groups(2, 0)), { node_type_id: 'm5.xlarge' })).toEqual([
      'the recommendation is not an EMR cluster configuration',
    ]);
  });
});
