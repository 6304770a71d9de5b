import { z } from 'zod';
import type { EbsBlockDevice, InstanceFleet, InstanceGroup } from '../api/schema.js';

/**
 * One cluster-shape model for EMR: a cluster is instance groups (one instance type and count per
 * role) or instance fleets (several instance types with weighted capacity, on-demand and spot target
 * capacities per role). The primary runs the drivers' YARN resource manager; core instances run
 * executors and hold HDFS; task instances run executors only.
 */
export const emrVolumeSchema = z.object({
  volumeType: z.string(),
  sizeGb: z.number().int().positive(),
  iops: z.number().int().positive().optional(),
  throughputMibps: z.number().int().positive().optional(),
});
export type EmrVolume = z.infer<typeof emrVolumeSchema>;

export const emrRoleSchema = z.enum(['MASTER', 'CORE', 'TASK']);
export type EmrRole = z.infer<typeof emrRoleSchema>;
export const emrMarketSchema = z.enum(['ON_DEMAND', 'SPOT']);
export type EmrMarketName = z.infer<typeof emrMarketSchema>;

export const emrInstanceGroupShapeSchema = z.object({
  role: emrRoleSchema,
  instanceType: z.string(),
  count: z.number().int().min(0),
  market: emrMarketSchema,
  /** Volumes per instance. */
  volumes: z.array(emrVolumeSchema),
});
export type EmrInstanceGroupShape = z.infer<typeof emrInstanceGroupShapeSchema>;

export const emrFleetTypeSchema = z.object({
  instanceType: z.string(),
  weightedCapacity: z.number().int().positive(),
  volumes: z.array(emrVolumeSchema),
});
export const emrInstanceFleetShapeSchema = z.object({
  role: emrRoleSchema,
  targetOnDemand: z.number().int().min(0),
  targetSpot: z.number().int().min(0),
  types: z.array(emrFleetTypeSchema).min(1),
});
export type EmrInstanceFleetShape = z.infer<typeof emrInstanceFleetShapeSchema>;

export const emrComputeLimitsSchema = z.object({
  unitType: z.enum(['Instances', 'InstanceFleetUnits', 'VCPU']),
  minimum: z.number().int().min(0),
  maximum: z.number().int().min(1),
  maximumOnDemand: z.number().int().min(0).optional(),
  maximumCore: z.number().int().min(0).optional(),
});
export type EmrComputeLimits = z.infer<typeof emrComputeLimitsSchema>;

export const emrClusterShapeSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('instance-groups'),
    groups: z.array(emrInstanceGroupShapeSchema).min(1),
    managedScaling: emrComputeLimitsSchema.nullable(),
  }),
  z.object({
    kind: z.literal('instance-fleets'),
    fleets: z.array(emrInstanceFleetShapeSchema).min(1),
    managedScaling: emrComputeLimitsSchema.nullable(),
  }),
]);
export type EmrClusterShape = z.infer<typeof emrClusterShapeSchema>;

/** EMR block devices → volumes per instance (one entry per attached volume). */
export function volumesOf(devices: readonly EbsBlockDevice[] | undefined): EmrVolume[] {
  const volumes: EmrVolume[] = [];
  for (const device of devices ?? []) {
    const spec = device.VolumeSpecification;
    if (!spec) continue;
    volumes.push({
      volumeType: spec.VolumeType,
      sizeGb: spec.SizeInGB,
      ...(spec.Iops ? { iops: spec.Iops } : {}),
      ...(spec.Throughput ? { throughputMibps: spec.Throughput } : {}),
    });
  }
  return volumes;
}

export function shapeFromInstanceGroups(
  groups: readonly InstanceGroup[],
  managedScaling: EmrComputeLimits | null,
): EmrClusterShape {
  return {
    kind: 'instance-groups',
    groups: groups.map((group) => ({
      role: group.InstanceGroupType,
      instanceType: group.InstanceType,
      count: group.RequestedInstanceCount,
      market: group.Market ?? 'ON_DEMAND',
      volumes: volumesOf(group.EbsBlockDevices),
    })),
    managedScaling,
  };
}

export function shapeFromInstanceFleets(
  fleets: readonly InstanceFleet[],
  managedScaling: EmrComputeLimits | null,
): EmrClusterShape {
  return {
    kind: 'instance-fleets',
    fleets: fleets.map((fleet) => ({
      role: fleet.InstanceFleetType,
      targetOnDemand: fleet.TargetOnDemandCapacity ?? 0,
      targetSpot: fleet.TargetSpotCapacity ?? 0,
      types: (fleet.InstanceTypeSpecifications ?? []).map((type) => ({
        instanceType: type.InstanceType,
        weightedCapacity: type.WeightedCapacity ?? 1,
        volumes: volumesOf(type.EbsBlockDevices),
      })),
    })),
    managedScaling,
  };
}

/** Volumes of an instance of `instanceType` in a group or fleet of the shape (none when unknown). */
export function volumesFor(
  shape: EmrClusterShape,
  owner: { role: EmrRole; instanceType: string },
): EmrVolume[] {
  if (shape.kind === 'instance-groups')
    return (
      shape.groups.find((group) => group.role === owner.role && group.instanceType === owner.instanceType)
        ?.volumes ?? []
    );
  const fleet = shape.fleets.find((candidate) => candidate.role === owner.role);
  return fleet?.types.find((type) => type.instanceType === owner.instanceType)?.volumes ?? [];
}
