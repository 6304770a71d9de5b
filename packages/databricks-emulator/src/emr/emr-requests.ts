import { z } from 'zod';

/**
 * The EMR API's request shapes the emulator reads (AWS JSON 1.1: PascalCase members, timestamps as
 * epoch seconds). Members the emulator does not model pass through untouched.
 */
const keyValue = z.object({ Key: z.string(), Value: z.string().optional() });

export interface EmrConfiguration {
  Classification?: string | undefined;
  Properties?: Record<string, string> | undefined;
  Configurations?: EmrConfiguration[] | undefined;
}
export const configurationSchema: z.ZodType<EmrConfiguration> = z.lazy(() =>
  z.object({
    Classification: z.string().optional(),
    Properties: z.record(z.string(), z.string()).optional(),
    Configurations: z.array(configurationSchema).optional(),
  }),
);

/**
 * What EMR accepts of the values below is judged first by the validity contract (`emr-validity.ts`, with
 * EMR's own messages); these schemas only read the request.
 */
export const volumeSpecificationSchema = z.object({
  VolumeType: z.string(),
  SizeInGB: z.number().int(),
  Iops: z.number().int().optional(),
  Throughput: z.number().int().optional(),
});

const ebsConfigurationSchema = z.object({
  EbsBlockDeviceConfigs: z
    .array(
      z.object({
        VolumeSpecification: volumeSpecificationSchema,
        VolumesPerInstance: z.number().int().optional(),
      }),
    )
    .optional(),
  EbsOptimized: z.boolean().optional(),
});
export type EbsConfiguration = z.infer<typeof ebsConfigurationSchema>;

export const instanceRoleSchema = z.enum(['MASTER', 'CORE', 'TASK']);
export type InstanceRole = z.infer<typeof instanceRoleSchema>;
export const marketSchema = z.enum(['ON_DEMAND', 'SPOT']);

export const instanceGroupConfigSchema = z.object({
  Name: z.string().optional(),
  Market: marketSchema.optional(),
  InstanceRole: instanceRoleSchema,
  BidPrice: z.string().optional(),
  InstanceType: z.string(),
  InstanceCount: z.number().int(),
  EbsConfiguration: ebsConfigurationSchema.optional(),
  Configurations: z.array(configurationSchema).optional(),
});
export type InstanceGroupConfig = z.infer<typeof instanceGroupConfigSchema>;

export const instanceTypeConfigSchema = z.object({
  InstanceType: z.string(),
  WeightedCapacity: z.number().int().optional(),
  BidPrice: z.string().optional(),
  BidPriceAsPercentageOfOnDemandPrice: z.number().optional(),
  EbsConfiguration: ebsConfigurationSchema.optional(),
  Configurations: z.array(configurationSchema).optional(),
});
export type InstanceTypeConfig = z.infer<typeof instanceTypeConfigSchema>;

export const instanceFleetConfigSchema = z.object({
  Name: z.string().optional(),
  InstanceFleetType: instanceRoleSchema,
  TargetOnDemandCapacity: z.number().int().optional(),
  TargetSpotCapacity: z.number().int().optional(),
  InstanceTypeConfigs: z.array(instanceTypeConfigSchema),
  LaunchSpecifications: z.record(z.string(), z.unknown()).optional(),
});
export type InstanceFleetConfig = z.infer<typeof instanceFleetConfigSchema>;

export const stepConfigSchema = z.object({
  Name: z.string().min(1),
  ActionOnFailure: z
    .enum(['TERMINATE_JOB_FLOW', 'TERMINATE_CLUSTER', 'CANCEL_AND_WAIT', 'CONTINUE'])
    .optional(),
  HadoopJarStep: z.object({
    Jar: z.string(),
    Args: z.array(z.string()).optional(),
    MainClass: z.string().optional(),
    Properties: z.array(keyValue).optional(),
  }),
});
export type StepConfig = z.infer<typeof stepConfigSchema>;

export const computeLimitsSchema = z.object({
  UnitType: z.enum(['InstanceFleetUnits', 'Instances', 'VCPU']),
  MinimumCapacityUnits: z.number().int(),
  MaximumCapacityUnits: z.number().int(),
  MaximumOnDemandCapacityUnits: z.number().int().optional(),
  MaximumCoreCapacityUnits: z.number().int().optional(),
});
export type ComputeLimits = z.infer<typeof computeLimitsSchema>;
const managedScalingPolicySchema = z.object({ ComputeLimits: computeLimitsSchema.optional() });

export const runJobFlowSchema = z
  .object({
    Name: z.string(),
    LogUri: z.string().optional(),
    ReleaseLabel: z.string().optional(),
    Instances: z
      .object({
        MasterInstanceType: z.string().optional(),
        SlaveInstanceType: z.string().optional(),
        InstanceCount: z.number().int().optional(),
        InstanceGroups: z.array(instanceGroupConfigSchema).optional(),
        InstanceFleets: z.array(instanceFleetConfigSchema).optional(),
        KeepJobFlowAliveWhenNoSteps: z.boolean().optional(),
        TerminationProtected: z.boolean().optional(),
        Ec2SubnetId: z.string().optional(),
        Ec2KeyName: z.string().optional(),
        Placement: z.object({ AvailabilityZone: z.string().optional() }).optional(),
      })
      .loose(),
    Steps: z.array(stepConfigSchema).optional(),
    Applications: z.array(z.object({ Name: z.string(), Version: z.string().optional() })).optional(),
    Configurations: z.array(configurationSchema).optional(),
    Tags: z.array(keyValue).optional(),
    ServiceRole: z.string().optional(),
    JobFlowRole: z.string().optional(),
    ManagedScalingPolicy: managedScalingPolicySchema.optional(),
    EbsRootVolumeSize: z.number().int().optional(),
  })
  .loose();
export type RunJobFlowRequest = z.infer<typeof runJobFlowSchema>;

const epochSeconds = z.union([z.number(), z.string().transform(Number)]);
const marker = z.string().optional();

export const describeClusterSchema = z.object({ ClusterId: z.string() });
export const listClustersSchema = z.object({
  CreatedAfter: epochSeconds.optional(),
  CreatedBefore: epochSeconds.optional(),
  ClusterStates: z.array(z.string()).optional(),
  Marker: marker,
});
export const listStepsSchema = z.object({
  ClusterId: z.string(),
  StepStates: z.array(z.string()).optional(),
  StepIds: z.array(z.string()).optional(),
  Marker: marker,
});
export const addJobFlowStepsSchema = z.object({
  JobFlowId: z.string(),
  Steps: z.array(stepConfigSchema).min(1),
});
export const listByClusterSchema = z.object({ ClusterId: z.string(), Marker: marker });
export const listInstancesSchema = z.object({
  ClusterId: z.string(),
  InstanceGroupId: z.string().optional(),
  InstanceGroupTypes: z.array(instanceRoleSchema).optional(),
  InstanceFleetId: z.string().optional(),
  InstanceFleetType: instanceRoleSchema.optional(),
  InstanceStates: z.array(z.string()).optional(),
  Marker: marker,
});
export const modifyInstanceGroupsSchema = z.object({
  ClusterId: z.string().optional(),
  InstanceGroups: z
    .array(
      z.object({ InstanceGroupId: z.string(), InstanceCount: z.number().int().min(0).optional() }).loose(),
    )
    .min(1),
});
export const modifyInstanceFleetSchema = z.object({
  ClusterId: z.string(),
  InstanceFleet: z.object({
    InstanceFleetId: z.string(),
    TargetOnDemandCapacity: z.number().int().min(0).optional(),
    TargetSpotCapacity: z.number().int().min(0).optional(),
    InstanceTypeConfigs: z.array(instanceTypeConfigSchema).optional(),
  }),
});
export const putManagedScalingPolicySchema = z.object({
  ClusterId: z.string(),
  ManagedScalingPolicy: z.object({ ComputeLimits: computeLimitsSchema }),
});
export const clusterIdSchema = z.object({ ClusterId: z.string() });
export const listSupportedInstanceTypesSchema = z.object({ ReleaseLabel: z.string().min(1), Marker: marker });
export const terminateJobFlowsSchema = z.object({ JobFlowIds: z.array(z.string()).min(1) });
