import { describe, expect, it } from 'vitest';
import { checkEmrRequest } from './emr-request-rules.js';
import type { EmrRequest } from './emr-rules.js';

const groups = (overrides: Record<string, unknown>[] = []) => [
  { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
  { InstanceRole: 'CORE', InstanceType: 'm5.xlarge', InstanceCount: 2 },
  ...overrides,
];
const runJobFlow = (instances: Record<string, unknown>, extra: Record<string, unknown> = {}): EmrRequest => ({
  operation: 'RunJobFlow',
  input: { Name: 'nightly', ReleaseLabel: 'emr-7.2.0', Instances: instances, ...extra },
});
const rules = (request: EmrRequest, facts = {}) =>
  checkEmrRequest(request, facts).map((violation) => violation.rule);

describe('the EMR contract', () => {
  it('accepts what Setpoint writes: instance groups, fleets, managed scaling', () => {
    expect(rules(runJobFlow({ InstanceGroups: groups() }))).toEqual([]);
    const fleets = {
      InstanceFleets: [
        {
          InstanceFleetType: 'MASTER',
          TargetOnDemandCapacity: 1,
          InstanceTypeConfigs: [{ InstanceType: 'm5.xlarge' }],
        },
        {
          InstanceFleetType: 'CORE',
          TargetOnDemandCapacity: 4,
          InstanceTypeConfigs: [
            {
              InstanceType: 'r5.xlarge',
              WeightedCapacity: 1,
              EbsConfiguration: {
                EbsBlockDeviceConfigs: [
                  {
                    VolumeSpecification: { VolumeType: 'gp3', SizeInGB: 256, Throughput: 250 },
                    VolumesPerInstance: 2,
                  },
                ],
              },
            },
          ],
        },
        {
          InstanceFleetType: 'TASK',
          TargetOnDemandCapacity: 0,
          TargetSpotCapacity: 0,
          InstanceTypeConfigs: [{ InstanceType: 'r5.xlarge', WeightedCapacity: 1 }],
          LaunchSpecifications: {
            SpotSpecification: {
              TimeoutDurationMinutes: 20,
              TimeoutAction: 'SWITCH_TO_ON_DEMAND',
              AllocationStrategy: 'capacity-optimized',
            },
          },
        },
      ],
    };
    const scaling = {
      ManagedScalingPolicy: {
        ComputeLimits: {
          UnitType: 'InstanceFleetUnits',
          MinimumCapacityUnits: 4,
          MaximumCapacityUnits: 8,
          MaximumCoreCapacityUnits: 4,
          MaximumOnDemandCapacityUnits: 4,
        },
      },
    };
    expect(rules(runJobFlow(fleets, scaling))).toEqual([]);
  });

  it('checks the request as the SDK does: required members, unknown members, types, minimums', () => {
    const [missing] = checkEmrRequest(
      runJobFlow({ InstanceGroups: [{ InstanceType: 'm5.xlarge', InstanceCount: 1 }] }),
    );
    expect(missing).toMatchObject({
      rule: 'parameters',
      field: 'Instances.InstanceGroups[0].InstanceRole',
      message: 'Missing required parameter in Instances.InstanceGroups[0]: "InstanceRole"',
    });
    expect(checkEmrRequest(runJobFlow({ InstanceGroups: groups(), Colour: 'blue' }))[0]?.message).toMatch(
      /^Unknown parameter in Instances: "Colour", must be one of: MasterInstanceType/,
    );
    expect(
      checkEmrRequest(
        runJobFlow({
          InstanceGroups: groups([{ InstanceRole: 'TASK', InstanceType: 'm5.xlarge', InstanceCount: '2' }]),
        }),
      )[0]?.message,
    ).toBe(
      'Invalid type for parameter Instances.InstanceGroups[2].InstanceCount, value: 2, valid types: int',
    );
    expect(
      checkEmrRequest({
        operation: 'ModifyInstanceFleet',
        input: { ClusterId: 'j-1', InstanceFleet: { InstanceFleetId: 'if-1', TargetSpotCapacity: -1 } },
      })[0]?.message,
    ).toBe('Invalid value for parameter InstanceFleet.TargetSpotCapacity, value: -1, valid min value: 0');
  });

  it("checks the model's enums and maximums as the service does", () => {
    const [market] = checkEmrRequest(
      runJobFlow({
        InstanceGroups: groups([
          { InstanceRole: 'TASK', InstanceType: 'm5.xlarge', InstanceCount: 1, Market: 'CHEAP' },
        ]),
      }),
    );
    expect(market).toMatchObject({ rule: 'model-constraints' });
    expect(market?.message).toBe(
      "1 validation error detected: Value 'CHEAP' at 'Instances.InstanceGroups[2].Market' failed to satisfy constraint: Member must satisfy enum value set: [ON_DEMAND, SPOT]",
    );
    expect(
      rules({
        operation: 'PutManagedScalingPolicy',
        input: {
          ClusterId: 'j-1',
          ManagedScalingPolicy: {
            ComputeLimits: { UnitType: 'Instances', MinimumCapacityUnits: 1, MaximumCapacityUnits: 4 },
            UtilizationPerformanceIndex: 101,
          },
        },
      }),
    ).toEqual(['model-constraints', 'compute-limits']);
  });

  it('refuses what the API reference rules out beyond the model', () => {
    expect(rules(runJobFlow({ InstanceGroups: groups(), InstanceFleets: [] }))).toEqual(['groups-or-fleets']);
    expect(
      rules(
        runJobFlow({
          InstanceGroups: groups([{ InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 }]),
        }),
      ),
    ).toEqual(['node-roles']);
    expect(
      rules(
        runJobFlow({
          InstanceGroups: [{ InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 2 }],
        }),
      ),
    ).toEqual(['node-roles']);
    expect(
      rules(
        runJobFlow({
          InstanceGroups: groups([{ InstanceRole: 'TASK', InstanceType: 'm5.xlarge', InstanceCount: -1 }]),
        }),
      ),
    ).toEqual(['instance-counts']);
    const volume = (spec: Record<string, unknown>) =>
      rules(
        runJobFlow({
          InstanceGroups: groups([
            {
              InstanceRole: 'TASK',
              InstanceType: 'm5.xlarge',
              InstanceCount: 1,
              EbsConfiguration: { EbsBlockDeviceConfigs: [{ VolumeSpecification: spec }] },
            },
          ]),
        }),
      );
    expect(volume({ VolumeType: 'gp2', SizeInGB: 64, Throughput: 250 })).toEqual(['ebs-volumes']);
    expect(volume({ VolumeType: 'gp3', SizeInGB: 2048 })).toEqual(['ebs-volumes']);
    expect(volume({ VolumeType: 'gp3', SizeInGB: 256, Throughput: 125 })).toEqual([]);
    const fleet = (master: Record<string, unknown>) =>
      rules(
        runJobFlow({
          InstanceFleets: [
            { InstanceFleetType: 'MASTER', InstanceTypeConfigs: [{ InstanceType: 'm5.xlarge' }], ...master },
          ],
        }),
      );
    expect(fleet({ TargetOnDemandCapacity: 1 })).toEqual([]);
    expect(fleet({ TargetOnDemandCapacity: 1, TargetSpotCapacity: 1 })).toEqual(['fleet-capacity']);
    expect(fleet({ TargetOnDemandCapacity: 2 })).toEqual(['fleet-capacity']);
  });

  it('checks managed-scaling limits against each other and against the cluster', () => {
    const put = (limits: Record<string, unknown>, collectionType: 'INSTANCE_GROUP' | 'INSTANCE_FLEET') =>
      rules(
        {
          operation: 'PutManagedScalingPolicy',
          input: { ClusterId: 'j-1', ManagedScalingPolicy: { ComputeLimits: limits } },
        },
        { collectionType },
      );
    expect(
      put({ UnitType: 'Instances', MinimumCapacityUnits: 2, MaximumCapacityUnits: 8 }, 'INSTANCE_GROUP'),
    ).toEqual([]);
    expect(
      put({ UnitType: 'Instances', MinimumCapacityUnits: 9, MaximumCapacityUnits: 8 }, 'INSTANCE_GROUP'),
    ).toEqual(['compute-limits']);
    expect(
      put(
        {
          UnitType: 'Instances',
          MinimumCapacityUnits: 2,
          MaximumCapacityUnits: 8,
          MaximumCoreCapacityUnits: 9,
        },
        'INSTANCE_GROUP',
      ),
    ).toEqual(['compute-limits']);
    expect(
      put({ UnitType: 'Instances', MinimumCapacityUnits: 2, MaximumCapacityUnits: 8 }, 'INSTANCE_FLEET'),
    ).toEqual(['compute-limits']);
  });

  it('refuses instance types the release does not support in the region, when that is known', () => {
    const facts = {
      supportedInstanceTypes: new Set(['m5.xlarge']),
      releaseLabel: 'emr-7.2.0',
      region: 'us-east-1',
    };
    const [refused] = checkEmrRequest(
      runJobFlow({
        InstanceGroups: groups([{ InstanceRole: 'TASK', InstanceType: 'r5.xlarge', InstanceCount: 1 }]),
      }),
      facts,
    );
    expect(refused?.message).toBe(
      'The instance type r5.xlarge is not supported by emr-7.2.0 in us-east-1 (ListSupportedInstanceTypes).',
    );
    expect(
      rules(
        runJobFlow({
          InstanceGroups: groups([{ InstanceRole: 'TASK', InstanceType: 'r5.xlarge', InstanceCount: 1 }]),
        }),
      ),
    ).toEqual([]);
  });
});
