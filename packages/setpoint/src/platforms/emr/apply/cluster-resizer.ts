import type { EmrClient } from '../api/emr-client.js';
import {
  planResize,
  type RecommendedConfiguration,
  type ResizeAction,
  type ResizePlan,
} from './resize-plan.js';

type Client = Pick<
  EmrClient,
  | 'describeCluster'
  | 'listSteps'
  | 'listInstanceGroups'
  | 'listInstanceFleets'
  | 'getManagedScalingPolicy'
  | 'modifyInstanceGroupCount'
  | 'modifyInstanceFleetTargets'
  | 'putManagedScalingPolicy'
  | 'removeManagedScalingPolicy'
>;

/** Reads the cluster as it is now and plans the change (guardrails included). */
export async function planClusterResize(
  client: Client,
  clusterId: string,
  recommended: RecommendedConfiguration,
): Promise<ResizePlan> {
  const cluster = await client.describeCluster(clusterId);
  const fleets = cluster.InstanceCollectionType === 'INSTANCE_FLEET';
  let stepRunning = false;
  for await (const step of client.listSteps(clusterId))
    if (step.Status.State === 'RUNNING') stepRunning = true;
  return planResize({
    cluster,
    groups: fleets ? [] : await client.listInstanceGroups(clusterId),
    fleets: fleets ? await client.listInstanceFleets(clusterId) : [],
    currentScaling: await client.getManagedScalingPolicy(clusterId),
    stepRunning,
    recommended,
  });
}

async function perform(
  client: Client,
  clusterId: string,
  action: ResizeAction,
  direction: 'to' | 'from',
): Promise<void> {
  switch (action.kind) {
    case 'instance-group':
      return client.modifyInstanceGroupCount(clusterId, action.instanceGroupId, action[direction]);
    case 'instance-fleet':
      return client.modifyInstanceFleetTargets(clusterId, action.instanceFleetId, action[direction]);
    case 'managed-scaling': {
      const limits = action[direction];
      return limits
        ? client.putManagedScalingPolicy(clusterId, limits)
        : client.removeManagedScalingPolicy(clusterId);
    }
  }
}

/**
 * Applies a plan action by action. When one fails, the ones already applied are reverted (newest first)
 * before the error is raised, so a cluster is never left half-changed by Setpoint.
 */
export async function applyResize(client: Client, plan: ResizePlan): Promise<ResizePlan> {
  const done: ResizeAction[] = [];
  for (const action of plan.actions) {
    try {
      await perform(client, plan.clusterId, action, 'to');
      done.push(action);
    } catch (error) {
      for (const applied of done.reverse()) await perform(client, plan.clusterId, applied, 'from');
      throw error;
    }
  }
  return plan;
}

/** Puts back what an applied plan changed: task counts and targets, and the previous scaling limits (or none). */
export async function revertResize(client: Client, applied: ResizePlan): Promise<void> {
  for (const action of [...applied.actions].reverse())
    await perform(client, applied.clusterId, action, 'from');
}
