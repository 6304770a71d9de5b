import type { EmrVolume } from '../cluster-shape/emr-cluster-shape.js';
import type { EmrChoice } from './emr-choice.js';

/** EBS volumes per instance as RunJobFlow groups them: one entry per distinct volume, with its count. */
export function ebsConfiguration(volumes: readonly EmrVolume[]) {
  if (volumes.length === 0) return undefined;
  const configs: { VolumeSpecification: Record<string, unknown>; VolumesPerInstance: number }[] = [];
  for (const volume of volumes) {
    const specification = {
      VolumeType: volume.volumeType,
      SizeInGB: volume.sizeGb,
      ...(volume.iops === undefined ? {} : { Iops: volume.iops }),
      ...(volume.throughputMibps === undefined ? {} : { Throughput: volume.throughputMibps }),
    };
    const same = configs.find(
      (config) => JSON.stringify(config.VolumeSpecification) === JSON.stringify(specification),
    );
    if (same) same.VolumesPerInstance += 1;
    else configs.push({ VolumeSpecification: specification, VolumesPerInstance: 1 });
  }
  return { EbsBlockDeviceConfigs: configs };
}

/** Minutes a fleet waits for spot capacity before switching to on-demand. */
export const spotTimeoutMinutes = 20;

/**
 * The `Instances` block of RunJobFlow for a choice: what the next transient cluster is launched with
 * (`setpoint export --format emr`, the Airflow hook's `job_flow_overrides`).
 */
export function instancesBlockOf(choice: EmrChoice): Record<string, unknown> {
  const ebs = ebsConfiguration(choice.volumes);
  const withEbs = ebs ? { EbsConfiguration: ebs } : {};
  if (choice.collection === 'instance-groups') {
    const groups: Record<string, unknown>[] = [
      {
        Name: 'Primary',
        InstanceRole: 'MASTER',
        Market: 'ON_DEMAND',
        InstanceType: choice.primaryType,
        InstanceCount: 1,
      },
      {
        Name: 'Core',
        InstanceRole: 'CORE',
        Market: 'ON_DEMAND',
        InstanceType: choice.workerType,
        InstanceCount: choice.core,
        ...withEbs,
      },
    ];
    // a long-running cluster's task group is named even at 0, so apply empties it rather than leave it
    if (choice.task > 0 || choice.longRunning)
      groups.push({
        Name: 'Task',
        InstanceRole: 'TASK',
        Market: choice.taskMarket === 'on-demand' ? 'ON_DEMAND' : 'SPOT',
        InstanceType: choice.workerType,
        InstanceCount: choice.task,
        ...withEbs,
      });
    return { InstanceGroups: groups };
  }
  const fleets: Record<string, unknown>[] = [
    {
      Name: 'Primary',
      InstanceFleetType: 'MASTER',
      TargetOnDemandCapacity: 1,
      InstanceTypeConfigs: [{ InstanceType: choice.primaryType }],
    },
    {
      Name: 'Core',
      InstanceFleetType: 'CORE',
      TargetOnDemandCapacity: choice.core,
      InstanceTypeConfigs: [{ InstanceType: choice.workerType, WeightedCapacity: 1, ...withEbs }],
    },
  ];
  if (choice.task > 0 || choice.longRunning) {
    const spot = choice.taskMarket !== 'on-demand';
    fleets.push({
      Name: 'Task',
      InstanceFleetType: 'TASK',
      TargetOnDemandCapacity: spot ? 0 : choice.task,
      TargetSpotCapacity: spot ? choice.task : 0,
      InstanceTypeConfigs: [{ InstanceType: choice.workerType, WeightedCapacity: 1, ...withEbs }],
      ...(spot
        ? {
            LaunchSpecifications: {
              SpotSpecification: {
                TimeoutDurationMinutes: spotTimeoutMinutes,
                TimeoutAction:
                  choice.taskMarket === 'spot-with-fallback' ? 'SWITCH_TO_ON_DEMAND' : 'TERMINATE_CLUSTER',
                AllocationStrategy: 'capacity-optimized',
              },
            },
          }
        : {}),
    });
  }
  return { InstanceFleets: fleets };
}

/**
 * What a recommendation writes, in EMR's terms: the RunJobFlow `Instances` block, and managed-scaling
 * limits when the cluster scales (core instances are the floor, EMR's units: instances or fleet units).
 */
export function emrConfigurationOf(choice: EmrChoice): Record<string, unknown> {
  return {
    Instances: instancesBlockOf(choice),
    ...(choice.managedScaling
      ? {
          ManagedScalingPolicy: {
            ComputeLimits: {
              UnitType: choice.collection === 'instance-groups' ? 'Instances' : 'InstanceFleetUnits',
              MinimumCapacityUnits: choice.core,
              MaximumCapacityUnits: choice.core + choice.task,
              MaximumCoreCapacityUnits: choice.core,
              MaximumOnDemandCapacityUnits:
                choice.taskMarket === 'on-demand' ? choice.core + choice.task : choice.core,
            },
          },
        }
      : {}),
  };
}
