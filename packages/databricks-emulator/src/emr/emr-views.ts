import { findNodeType, type NodeType } from '../physics/node-types.js';
import {
  type ClusterState,
  clusterStateAt,
  type EbsVolume,
  type InstanceFleetState,
  type InstanceGroupState,
  type InstanceState,
  instanceStateAt,
  liveInstances,
  type StepState,
  stepStateAt,
} from './emr-cluster.js';

/** AWS JSON 1.1 timestamps are epoch seconds. */

function timeline(entries: Record<string, number | undefined>, nowMs: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, ms] of Object.entries(entries)) if (ms !== undefined && ms <= nowMs) out[key] = ms / 1000;
  return out;
}

function ebsBlockDevices(volumes: EbsVolume[]) {
  return volumes.map((volume, index) => ({
    VolumeSpecification: {
      VolumeType: volume.volumeType,
      SizeInGB: volume.sizeGb,
      ...(volume.iops === undefined ? {} : { Iops: volume.iops }),
      ...(volume.throughput === undefined ? {} : { Throughput: volume.throughput }),
    },
    Device: `/dev/sd${String.fromCharCode(98 + index)}`,
  }));
}

/** EMR's normalization factor: instance hours count as this many "small" hours (xlarge = 8). */
function normalizationFactor(instanceType: string): number {
  const cores = findNodeType(instanceType)?.cores ?? 4;
  return cores * 2;
}

export function normalizedInstanceHours(cluster: ClusterState, nowMs: number): number {
  let hours = 0;
  for (const instance of cluster.instances) {
    const end = Math.min(instance.endAtMs ?? nowMs, nowMs);
    if (end <= instance.createdAtMs) continue;
    hours += Math.ceil((end - instance.createdAtMs) / 3_600_000) * normalizationFactor(instance.instanceType);
  }
  return hours;
}

function statusOf(cluster: ClusterState, nowMs: number) {
  const state = clusterStateAt(cluster, nowMs);
  const ended = state === 'TERMINATED' || state === 'TERMINATED_WITH_ERRORS' || state === 'TERMINATING';
  return {
    State: state,
    StateChangeReason:
      ended && cluster.terminationReason
        ? { Code: cluster.terminationReason.code, Message: cluster.terminationReason.message }
        : {},
    Timeline: timeline(
      {
        CreationDateTime: cluster.createdAtMs,
        ReadyDateTime: cluster.readyAtMs,
        EndDateTime: cluster.terminatedAtMs,
      },
      nowMs,
    ),
  };
}

export function clusterSummaryView(cluster: ClusterState, nowMs: number) {
  return {
    Id: cluster.id,
    Name: cluster.name,
    Status: statusOf(cluster, nowMs),
    NormalizedInstanceHours: normalizedInstanceHours(cluster, nowMs),
    ClusterArn: cluster.arn,
  };
}

export function clusterView(cluster: ClusterState, nowMs: number, region: string) {
  const master =
    liveInstances(cluster, nowMs, 'MASTER')[0] ?? cluster.instances.find((i) => i.role === 'MASTER');
  const request = cluster.request;
  return {
    ...clusterSummaryView(cluster, nowMs),
    Ec2InstanceAttributes: {
      Ec2KeyName: request.Instances.Ec2KeyName,
      Ec2SubnetId: request.Instances.Ec2SubnetId ?? 'subnet-0a1b2c3d',
      Ec2AvailabilityZone: request.Instances.Placement?.AvailabilityZone ?? `${region}a`,
      IamInstanceProfile: request.JobFlowRole ?? 'EMR_EC2_DefaultRole',
    },
    InstanceCollectionType: cluster.collectionType,
    LogUri: cluster.logUri,
    ReleaseLabel: cluster.releaseLabel,
    AutoTerminate: !cluster.keepAlive,
    TerminationProtected: cluster.terminationProtected,
    UnhealthyNodeReplacement: false,
    VisibleToAllUsers: true,
    Applications: (request.Applications ?? [{ Name: 'Spark' }]).map((application) => ({
      Name: application.Name,
      Version: application.Name === 'Spark' ? '3.5.0' : (application.Version ?? '3.3.6'),
    })),
    Tags: cluster.tags,
    ServiceRole: request.ServiceRole ?? 'EMR_DefaultRole',
    MasterPublicDnsName: master
      ? `ip-${master.privateIp.replaceAll('.', '-')}.${region}.compute.internal`
      : undefined,
    Configurations: cluster.configurations,
    ScaleDownBehavior: 'TERMINATE_AT_TASK_COMPLETION',
    EbsRootVolumeSize: request.EbsRootVolumeSize ?? 15,
    StepConcurrencyLevel: 1,
    PlacementGroups: [],
  };
}

export function instanceGroupView(cluster: ClusterState, group: InstanceGroupState, nowMs: number) {
  const running = liveInstances(cluster, nowMs).filter(
    (instance) => instance.groupId === group.id && instance.readyAtMs <= nowMs,
  ).length;
  const clusterState = clusterStateAt(cluster, nowMs);
  const ended = clusterState === 'TERMINATED' || clusterState === 'TERMINATED_WITH_ERRORS';
  const resizing = !ended && running !== group.requestedCount && nowMs >= cluster.readyAtMs;
  return {
    Id: group.id,
    Name: group.name,
    Market: group.market,
    InstanceGroupType: group.role,
    ...(group.bidPrice === undefined ? {} : { BidPrice: group.bidPrice }),
    InstanceType: group.instanceType,
    RequestedInstanceCount: group.requestedCount,
    RunningInstanceCount: ended ? 0 : running,
    Status: {
      State: ended
        ? 'TERMINATED'
        : nowMs < cluster.readyAtMs
          ? 'PROVISIONING'
          : resizing
            ? 'RESIZING'
            : 'RUNNING',
      StateChangeReason: {},
      Timeline: timeline(
        {
          CreationDateTime: group.createdAtMs,
          ReadyDateTime: cluster.readyAtMs,
          EndDateTime: cluster.terminatedAtMs,
        },
        nowMs,
      ),
    },
    Configurations: group.configurations,
    EbsBlockDevices: ebsBlockDevices(group.volumes),
    EbsOptimized: group.ebsOptimized,
    ShrinkPolicy: {},
  };
}

export function instanceFleetView(cluster: ClusterState, fleet: InstanceFleetState, nowMs: number) {
  const live = liveInstances(cluster, nowMs).filter(
    (instance) => instance.fleetId === fleet.id && instance.readyAtMs <= nowMs,
  );
  const weight = (type: string) =>
    fleet.types.find((entry) => entry.instanceType === type)?.weightedCapacity ?? 1;
  const provisioned = (market: string) =>
    live.filter((instance) => instance.market === market).reduce((sum, i) => sum + weight(i.instanceType), 0);
  const clusterState = clusterStateAt(cluster, nowMs);
  const ended = clusterState === 'TERMINATED' || clusterState === 'TERMINATED_WITH_ERRORS';
  return {
    Id: fleet.id,
    Name: fleet.name,
    Status: {
      State: ended ? 'TERMINATED' : nowMs < cluster.readyAtMs ? 'PROVISIONING' : 'RUNNING',
      StateChangeReason: {},
      Timeline: timeline(
        {
          CreationDateTime: fleet.createdAtMs,
          ReadyDateTime: cluster.readyAtMs,
          EndDateTime: cluster.terminatedAtMs,
        },
        nowMs,
      ),
    },
    InstanceFleetType: fleet.role,
    TargetOnDemandCapacity: fleet.targetOnDemand,
    TargetSpotCapacity: fleet.targetSpot,
    ProvisionedOnDemandCapacity: ended ? 0 : provisioned('ON_DEMAND'),
    ProvisionedSpotCapacity: ended ? 0 : provisioned('SPOT'),
    InstanceTypeSpecifications: fleet.types.map((type) => ({
      InstanceType: type.instanceType,
      WeightedCapacity: type.weightedCapacity,
      ...(type.bidPrice === undefined ? {} : { BidPrice: type.bidPrice }),
      ...(type.bidPriceAsPercentageOfOnDemandPrice === undefined
        ? {}
        : { BidPriceAsPercentageOfOnDemandPrice: type.bidPriceAsPercentageOfOnDemandPrice }),
      EbsBlockDevices: ebsBlockDevices(type.volumes),
      EbsOptimized: true,
    })),
  };
}

export function instanceView(cluster: ClusterState, instance: InstanceState, nowMs: number, region: string) {
  const state = instanceStateAt(instance, cluster.provisionedAtMs, nowMs);
  const dns = `ip-${instance.privateIp.replaceAll('.', '-')}.${region}.compute.internal`;
  return {
    Id: instance.id,
    Ec2InstanceId: instance.ec2InstanceId,
    PrivateDnsName: dns,
    PrivateIpAddress: instance.privateIp,
    Status: {
      State: state,
      StateChangeReason:
        state === 'TERMINATED' ? { Code: 'CLUSTER_TERMINATED', Message: 'Instance terminated' } : {},
      Timeline: timeline(
        {
          CreationDateTime: instance.createdAtMs,
          ReadyDateTime: instance.readyAtMs,
          EndDateTime: instance.endAtMs,
        },
        nowMs,
      ),
    },
    ...(instance.groupId ? { InstanceGroupId: instance.groupId } : {}),
    ...(instance.fleetId ? { InstanceFleetId: instance.fleetId } : {}),
    Market: instance.market,
    InstanceType: instance.instanceType,
    EbsVolumes: instance.volumeIds.map((volumeId, index) => ({
      Device: `/dev/sd${String.fromCharCode(98 + index)}`,
      VolumeId: volumeId,
    })),
  };
}

export function stepView(step: StepState, nowMs: number) {
  const state = stepStateAt(step, nowMs);
  const config = step.config.HadoopJarStep;
  return {
    Id: step.id,
    Name: step.config.Name,
    Config: {
      Jar: config.Jar,
      Properties: Object.fromEntries(
        (config.Properties ?? []).map((entry) => [entry.Key, entry.Value ?? '']),
      ),
      ...(config.MainClass === undefined ? {} : { MainClass: config.MainClass }),
      Args: config.Args ?? [],
    },
    ActionOnFailure: step.config.ActionOnFailure ?? 'TERMINATE_CLUSTER',
    Status: {
      State: state,
      StateChangeReason: {},
      ...(state === 'FAILED'
        ? { FailureDetails: { Reason: 'Unknown Error.', Message: step.failureMessage ?? 'The step failed.' } }
        : {}),
      Timeline: timeline(
        {
          CreationDateTime: step.createdAtMs,
          StartDateTime: step.startAtMs,
          EndDateTime: step.endAtMs ?? step.cancelledAtMs,
        },
        nowMs,
      ),
    },
  };
}

/** An instance type as `ListSupportedInstanceTypes` describes it. */
export function supportedInstanceTypeView(type: NodeType) {
  const localDisk = type.localDisk !== 'none';
  return {
    Type: type.nodeTypeId,
    MemoryGB: type.memoryMb / 1024,
    StorageGB: localDisk ? Math.round(type.localDiskGbPerCore * type.cores) : 0,
    VCPU: type.cores,
    Is64BitsOnly: true,
    InstanceFamilyId: type.family,
    EbsOptimizedAvailable: true,
    EbsOptimizedByDefault: true,
    NumberOfDisks: localDisk ? 1 : 0,
    EbsStorageOnly: !localDisk,
    Architecture: type.isGraviton ? 'arm64' : 'x86_64',
  };
}
