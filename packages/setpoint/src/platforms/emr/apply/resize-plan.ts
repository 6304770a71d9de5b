import { ConflictError, ValidationError } from '@setpoint/foundation/errors';
import type { Cluster, ComputeLimits, InstanceFleet, InstanceGroup } from '../api/schema.js';

/** The recommended configuration as apply reads it (what `emrConfigurationOf` wrote). */
interface RecommendedGroup {
  InstanceRole: 'MASTER' | 'CORE' | 'TASK';
  InstanceType: string;
  InstanceCount: number;
  /** RunJobFlow's default, as EMR reads a group without one: `ON_DEMAND`. */
  Market?: 'ON_DEMAND' | 'SPOT';
}
interface RecommendedFleet {
  InstanceFleetType: 'MASTER' | 'CORE' | 'TASK';
  TargetOnDemandCapacity?: number;
  TargetSpotCapacity?: number;
  InstanceTypeConfigs: { InstanceType: string }[];
}
export interface RecommendedConfiguration {
  Instances: { InstanceGroups?: RecommendedGroup[]; InstanceFleets?: RecommendedFleet[] };
  ManagedScalingPolicy?: { ComputeLimits: ComputeLimits };
}

export type ResizeAction =
  | { kind: 'instance-group'; instanceGroupId: string; role: 'TASK'; from: number; to: number }
  | {
      kind: 'instance-fleet';
      instanceFleetId: string;
      role: 'TASK';
      from: { onDemand: number; spot: number };
      to: { onDemand: number; spot: number };
    }
  | { kind: 'managed-scaling'; from: ComputeLimits | null; to: ComputeLimits };

export interface ResizePlan {
  clusterId: string;
  actions: ResizeAction[];
}

/** States in which EMR accepts resizes. */
const resizable = new Set(['RUNNING', 'WAITING']);

const limitKeys = [
  'UnitType',
  'MinimumCapacityUnits',
  'MaximumCapacityUnits',
  'MaximumOnDemandCapacityUnits',
  'MaximumCoreCapacityUnits',
] as const satisfies readonly (keyof ComputeLimits)[];

function sameLimits(a: ComputeLimits, b: ComputeLimits | null): boolean {
  return b !== null && limitKeys.every((key) => a[key] === b[key]);
}

function refuse(reason: string): never {
  throw new ConflictError('EMR_APPLY_REFUSED', reason);
}

/**
 * What applying a recommendation to a running cluster changes, checked against the guardrails: the
 * cluster must be long-running and active; the primary, the core instances (they hold HDFS) and every
 * instance type stay as they are (EMR cannot change a running group's type; that is a new cluster, i.e.
 * the launch configuration); task instances are not removed while a step runs (their containers would be
 * killed). Only task counts or targets and managed-scaling limits change.
 */
export function planResize(input: {
  cluster: Cluster;
  groups: readonly InstanceGroup[];
  fleets: readonly InstanceFleet[];
  currentScaling: ComputeLimits | null;
  stepRunning: boolean;
  recommended: RecommendedConfiguration;
}): ResizePlan {
  const { cluster } = input;
  if (cluster.AutoTerminate)
    refuse(
      `cluster ${cluster.Id} is transient (it terminates after its steps): its next launch takes the recommendation, not this cluster`,
    );
  if (!resizable.has(cluster.Status.State))
    refuse(
      `cluster ${cluster.Id} is ${cluster.Status.State}: only RUNNING or WAITING clusters can be resized`,
    );
  const actions: ResizeAction[] = [];
  const shrinkGuard = (from: number, to: number) => {
    if (to < from && input.stepRunning)
      refuse(
        `cluster ${cluster.Id} is running a step: task instances are not removed under it (${from} → ${to}); apply again when it is idle`,
      );
  };
  const recommendedGroups = input.recommended.Instances.InstanceGroups;
  const recommendedFleets = input.recommended.Instances.InstanceFleets;
  if (cluster.InstanceCollectionType === 'INSTANCE_FLEET') {
    if (!recommendedFleets)
      throw new ValidationError(
        'EMR_APPLY_MISMATCH',
        `cluster ${cluster.Id} uses instance fleets; the recommendation describes instance groups`,
      );
    for (const wanted of recommendedFleets) {
      const fleet = input.fleets.find(
        (candidate) => candidate.InstanceFleetType === wanted.InstanceFleetType,
      );
      const targets = { onDemand: wanted.TargetOnDemandCapacity ?? 0, spot: wanted.TargetSpotCapacity ?? 0 };
      if (!fleet) {
        if (wanted.InstanceFleetType === 'TASK' && targets.onDemand + targets.spot === 0) continue;
        refuse(
          `cluster ${cluster.Id} has no ${wanted.InstanceFleetType} fleet; adding one is a new launch configuration`,
        );
      }
      const current = { onDemand: fleet.TargetOnDemandCapacity ?? 0, spot: fleet.TargetSpotCapacity ?? 0 };
      const types = new Set((fleet.InstanceTypeSpecifications ?? []).map((type) => type.InstanceType));
      if (wanted.InstanceTypeConfigs.some((type) => !types.has(type.InstanceType)))
        refuse(
          `the ${wanted.InstanceFleetType} fleet of ${cluster.Id} would change instance types: that is a new launch configuration`,
        );
      if (current.onDemand === targets.onDemand && current.spot === targets.spot) continue;
      if (wanted.InstanceFleetType !== 'TASK')
        refuse(
          `the ${wanted.InstanceFleetType} fleet of ${cluster.Id} stays as it is (${wanted.InstanceFleetType === 'CORE' ? 'core instances hold HDFS' : 'the primary cannot be resized'})`,
        );
      shrinkGuard(current.onDemand + current.spot, targets.onDemand + targets.spot);
      actions.push({
        kind: 'instance-fleet',
        instanceFleetId: fleet.Id,
        role: 'TASK',
        from: current,
        to: targets,
      });
    }
  } else {
    if (!recommendedGroups)
      throw new ValidationError(
        'EMR_APPLY_MISMATCH',
        `cluster ${cluster.Id} uses instance groups; the recommendation describes instance fleets`,
      );
    for (const wanted of recommendedGroups) {
      const group = input.groups.find(
        (candidate) =>
          candidate.InstanceGroupType === wanted.InstanceRole &&
          candidate.InstanceType === wanted.InstanceType,
      );
      if (!group) {
        if (wanted.InstanceRole === 'TASK' && wanted.InstanceCount === 0) continue;
        refuse(
          `cluster ${cluster.Id} has no ${wanted.InstanceRole} group of ${wanted.InstanceType}: changing instance types or markets is a new launch configuration`,
        );
      }
      const [market, wantedMarket] = [group.Market ?? 'ON_DEMAND', wanted.Market ?? 'ON_DEMAND'];
      if (market !== wantedMarket)
        refuse(
          `the ${wanted.InstanceRole} group of ${cluster.Id} would change market (${market} → ${wantedMarket}): that is a new launch configuration`,
        );
      if (group.RequestedInstanceCount === wanted.InstanceCount) continue;
      if (wanted.InstanceRole !== 'TASK')
        refuse(
          `the ${wanted.InstanceRole} group of ${cluster.Id} stays at ${group.RequestedInstanceCount} (${wanted.InstanceRole === 'CORE' ? 'core instances hold HDFS' : 'the primary cannot be resized'})`,
        );
      shrinkGuard(group.RequestedInstanceCount, wanted.InstanceCount);
      actions.push({
        kind: 'instance-group',
        instanceGroupId: group.Id,
        role: 'TASK',
        from: group.RequestedInstanceCount,
        to: wanted.InstanceCount,
      });
    }
  }
  const limits = input.recommended.ManagedScalingPolicy?.ComputeLimits;
  if (limits && !sameLimits(limits, input.currentScaling))
    actions.push({ kind: 'managed-scaling', from: input.currentScaling, to: limits });
  return { clusterId: cluster.Id, actions };
}
