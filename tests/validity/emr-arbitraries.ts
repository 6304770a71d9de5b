import fc from 'fast-check';

/**
 * Random EMR requests for the validity property tests: mostly well-formed, with every field Setpoint writes
 * drawn from valid and invalid values alike, so both verdicts come up often.
 */

const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.noBias(fc.option(arbitrary, { nil: undefined, freq: 2 }));
/** Drops undefined fields: a request leaves a field out, it does not send `undefined`. */
const compact = <T extends Record<string, unknown>>(record: T): T =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;

const instanceTypes = ['m5.xlarge', 'm5.2xlarge', 'r5.xlarge', 'c5.xlarge', 'm5d.xlarge', 'x1z.huge'];

/** A rarely drawn value among common ones: most requests break no rule, some break one. */
const mostly = <T>(usual: readonly T[], rare: readonly T[]) =>
  fc
    .noBias(fc.integer({ min: 0, max: 12 * usual.length + rare.length - 1 }))
    .map((index) =>
      index < 12 * usual.length ? (usual[index % usual.length] as T) : (rare[index - 12 * usual.length] as T),
    );

const volume = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      VolumeType: mostly(['gp2', 'st1', 'io1'], ['gp9']),
      SizeInGB: mostly([32, 128, 512, 1024], [0, 2048]),
    }),
  },
  {
    weight: 6,
    arbitrary: fc
      .record({
        VolumeType: fc.constant('gp3'),
        SizeInGB: mostly([32, 128, 512, 1024], [0, 2048]),
        Throughput: maybe(mostly([125, 250, 1000], [100, 1200])),
        Iops: maybe(fc.constantFrom(3000, 6000)),
      })
      .map(compact),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      VolumeType: fc.constant('gp2'),
      SizeInGB: fc.constant(64),
      Throughput: fc.constant(250),
    }),
  },
);

const ebsConfiguration = fc.record({
  EbsBlockDeviceConfigs: fc.array(
    fc.record({ VolumeSpecification: volume, VolumesPerInstance: fc.integer({ min: 1, max: 4 }) }),
    { minLength: 1, maxLength: 1 },
  ),
});

const instanceGroup = (role: 'MASTER' | 'CORE' | 'TASK') =>
  fc
    .record({
      Name: fc.constant(role.toLowerCase()),
      InstanceRole: mostly([role], ['PRIMARY']),
      Market: maybe(mostly(['ON_DEMAND', 'SPOT'], ['CHEAP'])),
      InstanceType: mostly(instanceTypes.slice(0, -1), instanceTypes.slice(-1)),
      InstanceCount: role === 'MASTER' ? mostly([1, 3], [2]) : fc.integer({ min: 0, max: 12 }),
      EbsConfiguration: maybe(ebsConfiguration),
    })
    .map(compact);

const instanceFleet = (role: 'MASTER' | 'CORE' | 'TASK') =>
  fc
    .record({
      Name: fc.constant(role.toLowerCase()),
      InstanceFleetType: fc.constant(role),
      TargetOnDemandCapacity:
        role === 'MASTER' ? mostly([1], [0, 2]) : maybe(fc.integer({ min: 0, max: 12 })),
      TargetSpotCapacity:
        role === 'MASTER' ? maybe(mostly([0], [1])) : maybe(fc.integer({ min: 0, max: 12 })),
      InstanceTypeConfigs: fc.array(
        fc
          .record({
            InstanceType: mostly(instanceTypes.slice(0, -1), instanceTypes.slice(-1)),
            WeightedCapacity: maybe(role === 'MASTER' ? mostly([1], [2]) : fc.constantFrom(1, 2)),
            EbsConfiguration: maybe(ebsConfiguration),
          })
          .map(compact),
        { minLength: 1, maxLength: 3 },
      ),
      LaunchSpecifications: maybe(
        fc.record({
          SpotSpecification: fc
            .record({
              TimeoutDurationMinutes: mostly([5, 20, 1440], [1, 2000]),
              TimeoutAction: mostly(['SWITCH_TO_ON_DEMAND', 'TERMINATE_CLUSTER'], ['WAIT']),
              AllocationStrategy: maybe(
                mostly(['capacity-optimized', 'price-capacity-optimized'], ['cheapest']),
              ),
            })
            .map(compact),
        }),
      ),
    })
    .map(compact);

const computeLimits = fc
  .record({
    UnitType: mostly(['Instances', 'InstanceFleetUnits', 'VCPU'], ['Cores']),
    MinimumCapacityUnits: fc.integer({ min: 1, max: 6 }),
    MaximumCapacityUnits: fc.integer({ min: 4, max: 16 }),
    MaximumOnDemandCapacityUnits: maybe(fc.integer({ min: 1, max: 17 })),
    MaximumCoreCapacityUnits: maybe(fc.integer({ min: 1, max: 17 })),
  })
  .map(compact);

/** A RunJobFlow input: instance groups or fleets (now and then both, or a member EMR does not have). */
export const runJobFlowInput: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    Name: mostly(['nightly-etl'], ['']),
    ReleaseLabel: fc.constant('emr-7.2.0'),
    collection: mostly(['groups', 'fleets'], ['both']),
    groups: fc.tuple(instanceGroup('MASTER'), instanceGroup('CORE'), maybe(instanceGroup('TASK'))),
    fleets: fc.tuple(instanceFleet('MASTER'), instanceFleet('CORE'), maybe(instanceFleet('TASK'))),
    scaling: maybe(
      fc
        .record({
          ComputeLimits: computeLimits,
          UtilizationPerformanceIndex: maybe(mostly([25, 50], [60])),
        })
        .map(compact),
    ),
    stray: mostly([undefined], ['Colour']),
  })
  .map(({ Name, ReleaseLabel, collection, groups, fleets, scaling, stray }) => {
    const instanceGroups = groups.filter((group) => group !== undefined);
    const instanceFleets = fleets.filter((fleet) => fleet !== undefined);
    const instances: Record<string, unknown> = {
      KeepJobFlowAliveWhenNoSteps: false,
      ...(collection !== 'fleets' ? { InstanceGroups: instanceGroups } : {}),
      ...(collection !== 'groups' ? { InstanceFleets: instanceFleets } : {}),
      ...(stray ? { [stray]: 'blue' } : {}),
    };
    return compact({ Name, ReleaseLabel, Instances: instances, ManagedScalingPolicy: scaling });
  });
