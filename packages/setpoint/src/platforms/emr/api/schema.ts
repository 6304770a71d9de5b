import { z } from 'zod';

/**
 * The EMR API shapes Setpoint reads, validated at the edge. The AWS SDK returns timestamps as `Date`;
 * Setpoint keeps epoch milliseconds. Members Setpoint does not read are dropped.
 */
const epochMs = z.date().transform((date) => date.getTime());

const timelineSchema = z
  .object({
    CreationDateTime: epochMs.optional(),
    ReadyDateTime: epochMs.optional(),
    StartDateTime: epochMs.optional(),
    EndDateTime: epochMs.optional(),
  })
  .optional()
  .transform((timeline) => ({
    createdAt: timeline?.CreationDateTime ?? null,
    readyAt: timeline?.ReadyDateTime ?? null,
    startedAt: timeline?.StartDateTime ?? null,
    endedAt: timeline?.EndDateTime ?? null,
  }));

const statusSchema = z.object({
  State: z.string(),
  StateChangeReason: z.object({ Code: z.string().optional(), Message: z.string().optional() }).optional(),
  Timeline: timelineSchema,
});

export const clusterStates = [
  'STARTING',
  'BOOTSTRAPPING',
  'RUNNING',
  'WAITING',
  'TERMINATING',
  'TERMINATED',
  'TERMINATED_WITH_ERRORS',
] as const;

export const clusterSummarySchema = z.object({
  Id: z.string(),
  Name: z.string(),
  Status: statusSchema,
  NormalizedInstanceHours: z.number().optional(),
});
export type ClusterSummary = z.infer<typeof clusterSummarySchema>;

export interface ConfigurationShape {
  Classification?: string | undefined;
  Properties?: Record<string, string> | undefined;
  Configurations?: ConfigurationShape[] | undefined;
}
export const configurationSchema: z.ZodType<ConfigurationShape> = z.lazy(() =>
  z.object({
    Classification: z.string().optional(),
    Properties: z.record(z.string(), z.string()).optional(),
    Configurations: z.array(configurationSchema).optional(),
  }),
);

export const clusterSchema = clusterSummarySchema.extend({
  InstanceCollectionType: z.enum(['INSTANCE_GROUP', 'INSTANCE_FLEET']).optional(),
  LogUri: z.string().optional(),
  ReleaseLabel: z.string().optional(),
  AutoTerminate: z.boolean().optional(),
  Tags: z.array(z.object({ Key: z.string().optional(), Value: z.string().optional() })).optional(),
  Configurations: z.array(configurationSchema).optional(),
  Ec2InstanceAttributes: z
    .object({ Ec2AvailabilityZone: z.string().optional(), Ec2SubnetId: z.string().optional() })
    .optional(),
  Applications: z.array(z.object({ Name: z.string().optional(), Version: z.string().optional() })).optional(),
});
export type Cluster = z.infer<typeof clusterSchema>;

/** One instance type an EMR release supports in a region (`ListSupportedInstanceTypes`). */
export const supportedInstanceTypeSchema = z.object({
  Type: z.string().min(1),
  VCPU: z.number().optional(),
  MemoryGB: z.number().optional(),
  Architecture: z.string().optional(),
});

export const stepSummarySchema = z.object({
  Id: z.string(),
  Name: z.string(),
  Config: z
    .object({
      Jar: z.string().optional(),
      Args: z.array(z.string()).optional(),
      MainClass: z.string().optional(),
      Properties: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  ActionOnFailure: z.string().optional(),
  Status: statusSchema,
});
export type StepSummary = z.infer<typeof stepSummarySchema>;

const ebsBlockDeviceSchema = z.object({
  VolumeSpecification: z
    .object({
      VolumeType: z.string(),
      SizeInGB: z.number(),
      Iops: z.number().optional(),
      Throughput: z.number().optional(),
    })
    .optional(),
  Device: z.string().optional(),
});
export type EbsBlockDevice = z.infer<typeof ebsBlockDeviceSchema>;

export const instanceRoleSchema = z.enum(['MASTER', 'CORE', 'TASK']);
export type InstanceRole = z.infer<typeof instanceRoleSchema>;
export const marketSchema = z.enum(['ON_DEMAND', 'SPOT']);
export type EmrMarket = z.infer<typeof marketSchema>;

export const instanceGroupSchema = z.object({
  Id: z.string(),
  Name: z.string().optional(),
  Market: marketSchema.optional(),
  InstanceGroupType: instanceRoleSchema,
  BidPrice: z.string().optional(),
  InstanceType: z.string(),
  RequestedInstanceCount: z.number().int(),
  RunningInstanceCount: z.number().int().optional(),
  Status: statusSchema.optional(),
  EbsBlockDevices: z.array(ebsBlockDeviceSchema).optional(),
});
export type InstanceGroup = z.infer<typeof instanceGroupSchema>;

export const instanceFleetSchema = z.object({
  Id: z.string(),
  Name: z.string().optional(),
  InstanceFleetType: instanceRoleSchema,
  TargetOnDemandCapacity: z.number().int().optional(),
  TargetSpotCapacity: z.number().int().optional(),
  ProvisionedOnDemandCapacity: z.number().int().optional(),
  ProvisionedSpotCapacity: z.number().int().optional(),
  Status: statusSchema.optional(),
  InstanceTypeSpecifications: z
    .array(
      z.object({
        InstanceType: z.string(),
        WeightedCapacity: z.number().int().optional(),
        BidPrice: z.string().optional(),
        BidPriceAsPercentageOfOnDemandPrice: z.number().optional(),
        EbsBlockDevices: z.array(ebsBlockDeviceSchema).optional(),
      }),
    )
    .optional(),
});
export type InstanceFleet = z.infer<typeof instanceFleetSchema>;

export const instanceSchema = z.object({
  Id: z.string(),
  Ec2InstanceId: z.string().optional(),
  Status: statusSchema,
  InstanceGroupId: z.string().optional(),
  InstanceFleetId: z.string().optional(),
  Market: marketSchema.optional(),
  InstanceType: z.string(),
  PrivateIpAddress: z.string().optional(),
  PrivateDnsName: z.string().optional(),
  EbsVolumes: z
    .array(z.object({ Device: z.string().optional(), VolumeId: z.string().optional() }))
    .optional(),
});
export type Instance = z.infer<typeof instanceSchema>;

export const computeLimitsSchema = z.object({
  UnitType: z.enum(['InstanceFleetUnits', 'Instances', 'VCPU']),
  MinimumCapacityUnits: z.number().int(),
  MaximumCapacityUnits: z.number().int(),
  MaximumOnDemandCapacityUnits: z.number().int().optional(),
  MaximumCoreCapacityUnits: z.number().int().optional(),
});
export type ComputeLimits = z.infer<typeof computeLimitsSchema>;
