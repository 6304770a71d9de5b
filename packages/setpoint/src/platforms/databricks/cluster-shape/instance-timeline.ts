import type { TimelineNode } from '../../../cost/run-cost.js';
import type { ClusterEvent } from '../api/schema.js';
import type { DatabricksClusterShape } from './cluster-shape.js';

/** system.compute.node_timeline writes one row per node and minute. */
export const nodeTimelineRowMs = 60_000;

/** One instance as the node timeline saw it: the start of its first row and the end of its last. */
export interface ObservedInstance {
  instanceId: string;
  driver: boolean;
  nodeType: string;
  firstStartMs: number;
  lastEndMs: number;
}

export interface ClusterBounds {
  /** When the cluster was requested (`CREATING`, else clusters/get `start_time`). */
  createdMs: number;
  /** When it terminated (clusters/get `terminated_time`); unknown while it still runs. */
  terminatedMs: number | undefined;
}

/** Events that end a node at their own timestamp when they name its instance. */
const nodeEndingEvents = new Set(['NODES_LOST', 'NODE_EXCLUDED_DECOMMISSIONED', 'DECOMMISSION_ENDED']);

/**
 * Whether the node timeline already covers the whole cluster: it has terminated and some node has a row
 * for the minute it terminated in (rows appear a minute at a time, and only once the minute is over).
 */
export function nodeTimelineComplete(instances: ObservedInstance[], bounds: ClusterBounds): boolean {
  const { terminatedMs } = bounds;
  if (terminatedMs === undefined || instances.length === 0) return false;
  return instances.some((instance) => instance.lastEndMs >= terminatedMs);
}

/**
 * Where a node's first billed moment can lie, in ms after the cluster was requested: within the minute
 * of its first node_timeline row, never before the request, never after its last row ends.
 */
export interface LaunchWindow {
  lowMs: number;
  highMs: number;
}

export function launchWindowOf(instance: ObservedInstance, bounds: ClusterBounds): LaunchWindow {
  const low = Math.max(instance.firstStartMs, bounds.createdMs);
  const high = Math.max(low, Math.min(instance.firstStartMs + nodeTimelineRowMs, instance.lastEndMs));
  return { lowMs: low - bounds.createdMs, highMs: high - bounds.createdMs };
}

/**
 * A node's start within its launch window, in ms after the cluster request: the workspace's learned
 * launch delay when the window holds it (a node launched with the cluster), else the middle of the
 * window, the unbiased guess when the row is all that is known (a node added later, or no delay learned).
 */
export function placeLaunch(window: LaunchWindow, launchDelayMs: number | null): number {
  if (launchDelayMs !== null && launchDelayMs >= window.lowMs && launchDelayMs <= window.highMs)
    return launchDelayMs;
  return (window.lowMs + window.highMs) / 2;
}

/**
 * Each instance priced from its own start to its own end. The node timeline says in which minute a node
 * first and last ran; within that minute the cluster's events place it where they can — nothing starts
 * before the cluster was requested, a node still there when the cluster terminated ends with it, a node
 * an event names (`NODES_LOST` with its `instance_id`) ends at that event — and otherwise the start is
 * placed by `placeLaunch` and the end at the middle of its last minute. Markets follow the shape: the
 * driver and the first `firstOnDemand − 1` workers to start on-demand, the rest on the shape's market.
 */
export function nodesFromInstances(
  instances: ObservedInstance[],
  events: Array<Pick<ClusterEvent, 'timestamp' | 'type' | 'details'>>,
  bounds: ClusterBounds,
  shape: DatabricksClusterShape,
  launchDelayMs: number | null = null,
): TimelineNode[] {
  const endedByEvent = new Map<string, number>();
  for (const event of events) {
    const instanceId = (event.details as Record<string, unknown>).instance_id;
    if (nodeEndingEvents.has(event.type) && typeof instanceId === 'string' && !endedByEvent.has(instanceId))
      endedByEvent.set(instanceId, event.timestamp);
  }
  const lives = instances.map((instance) => {
    const startMs = bounds.createdMs + placeLaunch(launchWindowOf(instance, bounds), launchDelayMs);
    return { instance, startMs, endMs: Math.max(startMs, endOf(instance, startMs, bounds, endedByEvent)) };
  });
  lives.sort((a, b) => a.startMs - b.startMs);
  const usesSpot = shape.market !== 'on-demand';
  let onDemandWorkersLeft = Math.max(0, shape.firstOnDemand - 1);
  return lives.map(({ instance, startMs, endMs }): TimelineNode => {
    if (instance.driver)
      return {
        role: 'driver',
        nodeType: instance.nodeType,
        startMs,
        endMs,
        market: usesSpot && shape.firstOnDemand < 1 ? shape.market : 'on-demand',
      };
    const onDemand = !usesSpot || onDemandWorkersLeft > 0;
    if (onDemand && usesSpot) onDemandWorkersLeft -= 1;
    return {
      role: 'worker',
      nodeType: instance.nodeType,
      startMs,
      endMs,
      market: onDemand ? 'on-demand' : shape.market,
    };
  });
}

function endOf(
  instance: ObservedInstance,
  startMs: number,
  bounds: ClusterBounds,
  endedByEvent: Map<string, number>,
): number {
  const lastRowStart = instance.lastEndMs - nodeTimelineRowMs;
  const named = endedByEvent.get(instance.instanceId);
  if (named !== undefined && named > lastRowStart - nodeTimelineRowMs && named <= instance.lastEndMs)
    return named;
  const { terminatedMs } = bounds;
  if (terminatedMs !== undefined && terminatedMs > lastRowStart && terminatedMs <= instance.lastEndMs)
    return terminatedMs;
  const endLow = Math.max(lastRowStart, startMs);
  return (endLow + instance.lastEndMs) / 2;
}
