import type {
  ComputeLimits,
  EmrConfiguration,
  InstanceRole,
  RunJobFlowRequest,
  StepConfig,
} from './emr-requests.js';

export type Market = 'ON_DEMAND' | 'SPOT';

export interface EbsVolume {
  volumeType: string;
  sizeGb: number;
  iops?: number | undefined;
  throughput?: number | undefined;
}

/** One instance group of a cluster (the `INSTANCE_GROUP` collection type). */
export interface InstanceGroupState {
  id: string;
  name: string;
  role: InstanceRole;
  market: Market;
  bidPrice: string | undefined;
  instanceType: string;
  requestedCount: number;
  /** Volumes per instance, already expanded by `VolumesPerInstance`. */
  volumes: EbsVolume[];
  ebsOptimized: boolean;
  configurations: EmrConfiguration[];
  createdAtMs: number;
  lastResizedAtMs: number | undefined;
}

export interface FleetInstanceType {
  instanceType: string;
  weightedCapacity: number;
  bidPrice: string | undefined;
  bidPriceAsPercentageOfOnDemandPrice: number | undefined;
  volumes: EbsVolume[];
}

/** One instance fleet of a cluster (the `INSTANCE_FLEET` collection type). */
export interface InstanceFleetState {
  id: string;
  name: string;
  role: InstanceRole;
  targetOnDemand: number;
  targetSpot: number;
  types: FleetInstanceType[];
  createdAtMs: number;
}

export interface InstanceState {
  id: string;
  ec2InstanceId: string;
  role: InstanceRole;
  groupId: string | undefined;
  fleetId: string | undefined;
  market: Market;
  instanceType: string;
  privateIp: string;
  volumes: EbsVolume[];
  volumeIds: string[];
  createdAtMs: number;
  readyAtMs: number;
  endAtMs: number | undefined;
}

export type StepOutcome = 'COMPLETED' | 'FAILED';

export interface StepState {
  id: string;
  config: StepConfig;
  createdAtMs: number;
  /** Set when the step starts: the simulation is run then, with the cluster's shape at that moment. */
  startAtMs: number | undefined;
  endAtMs: number | undefined;
  outcome: StepOutcome | undefined;
  failureMessage: string | undefined;
  cancelledAtMs: number | undefined;
  /** The YARN application the step's `spark-submit` ran. */
  applicationId: string | undefined;
  /** The rendered event log, kept until it is written at the step's end. */
  pendingEventLog: string | undefined;
  logsDelivered: boolean;
}

export interface TerminationReason {
  code: string;
  message: string;
}

export interface ClusterState {
  id: string;
  name: string;
  arn: string;
  request: RunJobFlowRequest;
  releaseLabel: string;
  logUri: string | undefined;
  collectionType: 'INSTANCE_GROUP' | 'INSTANCE_FLEET';
  keepAlive: boolean;
  terminationProtected: boolean;
  tags: { Key: string; Value: string }[];
  configurations: EmrConfiguration[];
  createdAtMs: number;
  /** End of STARTING (EC2 provisioning); BOOTSTRAPPING lasts until `readyAtMs`. */
  provisionedAtMs: number;
  readyAtMs: number;
  terminatingAtMs: number | undefined;
  terminatedAtMs: number | undefined;
  terminationReason: TerminationReason | undefined;
  failed: boolean;
  groups: InstanceGroupState[];
  fleets: InstanceFleetState[];
  instances: InstanceState[];
  steps: StepState[];
  managedScaling: ComputeLimits | undefined;
  /** YARN's cluster timestamp (the ResourceManager's start), the middle part of application ids. */
  yarnClusterTimestamp: number;
  applicationCount: number;
}

export type ClusterStateName =
  | 'STARTING'
  | 'BOOTSTRAPPING'
  | 'RUNNING'
  | 'WAITING'
  | 'TERMINATING'
  | 'TERMINATED'
  | 'TERMINATED_WITH_ERRORS';

export function clusterStateAt(cluster: ClusterState, nowMs: number): ClusterStateName {
  if (cluster.terminatedAtMs !== undefined && cluster.terminatedAtMs <= nowMs)
    return cluster.failed ? 'TERMINATED_WITH_ERRORS' : 'TERMINATED';
  if (cluster.terminatingAtMs !== undefined && cluster.terminatingAtMs <= nowMs) return 'TERMINATING';
  if (nowMs < cluster.provisionedAtMs) return 'STARTING';
  if (nowMs < cluster.readyAtMs) return 'BOOTSTRAPPING';
  return cluster.steps.some((step) => stepStateAt(step, nowMs) === 'RUNNING') ? 'RUNNING' : 'WAITING';
}

export type StepStateName = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'CANCELLED' | 'FAILED';

export function stepStateAt(step: StepState, nowMs: number): StepStateName {
  if (step.cancelledAtMs !== undefined && step.cancelledAtMs <= nowMs) return 'CANCELLED';
  if (step.startAtMs === undefined || step.startAtMs > nowMs) return 'PENDING';
  if (step.endAtMs === undefined || step.endAtMs > nowMs) return 'RUNNING';
  return step.outcome ?? 'COMPLETED';
}

export type InstanceStateName = 'PROVISIONING' | 'BOOTSTRAPPING' | 'RUNNING' | 'TERMINATED';

export function instanceStateAt(
  instance: InstanceState,
  provisionedAtMs: number,
  nowMs: number,
): InstanceStateName {
  if (instance.endAtMs !== undefined && instance.endAtMs <= nowMs) return 'TERMINATED';
  if (nowMs < Math.min(provisionedAtMs, instance.readyAtMs)) return 'PROVISIONING';
  if (nowMs < instance.readyAtMs) return 'BOOTSTRAPPING';
  return 'RUNNING';
}

/** The instances of a role that run at `nowMs` (or will, once provisioned). */
export function liveInstances(cluster: ClusterState, nowMs: number, role?: InstanceRole): InstanceState[] {
  return cluster.instances.filter(
    (instance) =>
      (role === undefined || instance.role === role) &&
      (instance.endAtMs === undefined || instance.endAtMs > nowMs),
  );
}

/** A configuration classification's properties (e.g. `spark-defaults`), later entries winning. */
export function classificationProperties(
  configurations: readonly EmrConfiguration[],
  classification: string,
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const configuration of configurations)
    if (configuration.Classification === classification)
      Object.assign(merged, configuration.Properties ?? {});
  return merged;
}
