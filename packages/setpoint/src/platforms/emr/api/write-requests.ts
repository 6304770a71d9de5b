import type {
  ModifyInstanceFleetCommandInput,
  ModifyInstanceGroupsCommandInput,
  PutManagedScalingPolicyCommandInput,
} from '@aws-sdk/client-emr';
import type { ComputeLimits } from './schema.js';

/**
 * The requests Setpoint changes a running cluster with, built in one place: the client sends exactly what
 * the writer checked against EMR's validity contract before the write.
 */
export type EmrWriteRequest =
  | { operation: 'ModifyInstanceGroups'; input: ModifyInstanceGroupsCommandInput }
  | { operation: 'ModifyInstanceFleet'; input: ModifyInstanceFleetCommandInput }
  | { operation: 'PutManagedScalingPolicy'; input: PutManagedScalingPolicyCommandInput };

export const instanceGroupCountRequest = (
  clusterId: string,
  instanceGroupId: string,
  count: number,
): Extract<EmrWriteRequest, { operation: 'ModifyInstanceGroups' }> => ({
  operation: 'ModifyInstanceGroups',
  input: {
    ClusterId: clusterId,
    InstanceGroups: [{ InstanceGroupId: instanceGroupId, InstanceCount: count }],
  },
});

export const instanceFleetTargetsRequest = (
  clusterId: string,
  instanceFleetId: string,
  targets: { onDemand: number; spot: number },
): Extract<EmrWriteRequest, { operation: 'ModifyInstanceFleet' }> => ({
  operation: 'ModifyInstanceFleet',
  input: {
    ClusterId: clusterId,
    InstanceFleet: {
      InstanceFleetId: instanceFleetId,
      TargetOnDemandCapacity: targets.onDemand,
      TargetSpotCapacity: targets.spot,
    },
  },
});

export const managedScalingRequest = (
  clusterId: string,
  limits: ComputeLimits,
): Extract<EmrWriteRequest, { operation: 'PutManagedScalingPolicy' }> => ({
  operation: 'PutManagedScalingPolicy',
  input: { ClusterId: clusterId, ManagedScalingPolicy: { ComputeLimits: limits } },
});
