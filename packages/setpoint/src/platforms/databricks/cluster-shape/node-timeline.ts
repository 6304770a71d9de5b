import { ValidationError } from '@setpoint/foundation/errors';
import type { Market } from '../../../cost/cluster-spec.js';
import type { TimelineNode } from '../../../cost/run-cost.js';
import type { Cluster, ClusterEvent } from '../api/schema.js';
import type { DatabricksClusterShape } from './cluster-shape.js';

/** Events whose `details.current_num_workers` tells how many workers the cluster has right then. */
const sizeEvents = new Set([
  'RUNNING',
  'UPSIZE_COMPLETED',
  'NODES_LOST',
  'RESIZING',
  'AUTOSCALING_STATS_REPORT',
  'DRIVER_HEALTHY',
]);
const endEvents = new Set(['TERMINATING', 'TERMINATED']);

interface LiveWorker {
  startMs: number;
  market: Market;
}

/** What a cluster's lifetime is read from: a clusters/get answer or the cluster of a cluster report. */
export type ClusterLifetime = Partial<
  Pick<Cluster, 'cluster_id' | 'start_time' | 'terminated_time' | 'num_workers' | 'autoscale'>
>;

export interface NodeTimelineSummary {
  nodes: TimelineNode[];
  /** Workers lost (spot reclaimed or failed hardware) during the run. */
  nodesLost: number;
  maxWorkers: number;
  startMs: number;
  endMs: number;
}

/**
 * Rebuilds every instance's life from clusters/get and the cluster's events: nodes start when the
 * cluster is created, or — for nodes added later — when Databricks asked for them (the `RESIZING` that
 * raised the target above what the cluster had and was already waiting for), else when they arrived
 * (`UPSIZE_COMPLETED`, a larger `current_num_workers`); `ADD_NODES_FAILED` drops what was still being
 * asked for. Nodes end when the cluster shrinks (a `RESIZING` whose target is below the workers it has,
 * or a smaller `current_num_workers`), loses nodes, or terminates. Each replacement of a lost node is a
 * node of its own. Markets follow the cluster's shape: the driver and the first `firstOnDemand − 1`
 * workers on-demand, the rest on the shape's market. A spot-with-fallback node stays
 * `spot-with-fallback`: which nodes fell back is not reported, and its cost range reaches on-demand.
 */
export function reconstructNodeTimeline(
  cluster: ClusterLifetime,
  events: Array<Pick<ClusterEvent, 'timestamp' | 'type' | 'details'>>,
  shape: DatabricksClusterShape,
  runEndMs?: number,
): NodeTimelineSummary {
  const sorted = [...events].sort((a, b) => a.timestamp - b.timestamp);
  const created = sorted.find((event) => event.type === 'CREATING') ?? sorted[0];
  const startMs = created?.timestamp ?? cluster.start_time;
  if (startMs === undefined) {
    throw new ValidationError(
      'NO_CLUSTER_START',
      `cluster ${cluster.cluster_id} has neither events nor a start time`,
    );
  }
  const ended = sorted.find((event) => endEvents.has(event.type));
  const endMs =
    cluster.terminated_time ?? ended?.timestamp ?? runEndMs ?? sorted.at(-1)?.timestamp ?? startMs;

  const usesSpot = shape.market !== 'on-demand';
  const { firstOnDemand } = shape;
  const workerType = shape.workerNodeType;
  const nodes: TimelineNode[] = [
    {
      role: 'driver',
      nodeType: shape.driverNodeType,
      startMs,
      endMs,
      market: usesSpot && firstOnDemand < 1 ? shape.market : 'on-demand',
    },
  ];

  const live: LiveWorker[] = [];
  let nodesLost = 0;
  let maxWorkers = 0;
  let onDemandWorkersLeft = Math.max(0, firstOnDemand - 1);
  /** When each node asked for and not yet arrived was asked for, oldest first. */
  let requested: number[] = [];
  let running = false;
  const addWorkers = (count: number, at: number) => {
    for (let index = 0; index < count; index += 1) {
      const onDemand = !usesSpot || onDemandWorkersLeft > 0;
      if (onDemand && usesSpot) onDemandWorkersLeft -= 1;
      live.push({ startMs: requested.shift() ?? at, market: onDemand ? 'on-demand' : shape.market });
    }
  };
  const endWorkers = (count: number, at: number, preferSpot: boolean) => {
    for (let index = 0; index < count && live.length > 0; index += 1) {
      const spotIndex = preferSpot ? live.findLastIndex((worker) => worker.market !== 'on-demand') : -1;
      const [worker] = live.splice(spotIndex >= 0 ? spotIndex : live.length - 1, 1);
      if (!worker) break;
      if (worker.market === 'on-demand' && usesSpot) onDemandWorkersLeft += 1;
      nodes.push({
        role: 'worker',
        nodeType: workerType,
        startMs: worker.startMs,
        endMs: at,
        market: worker.market,
      });
    }
  };

  for (const event of sorted) {
    if (event.timestamp > endMs) break;
    if (endEvents.has(event.type)) break;
    const details = event.details as Record<string, unknown>;
    const current = details.current_num_workers;
    const target = details.target_num_workers;
    if (event.type === 'ADD_NODES_FAILED') {
      requested = [];
      continue;
    }
    // a resize before the cluster first ran is its creation, whose nodes start with it
    if (event.type === 'RESIZING' && typeof target === 'number' && running) {
      const asked = target - live.length - requested.length;
      for (let index = 0; index < asked; index += 1) requested.push(event.timestamp);
      if (target < live.length) {
        requested = [];
        endWorkers(live.length - target, event.timestamp, false);
        continue;
      }
    }
    if (event.type === 'NODES_LOST') {
      const lost = typeof current === 'number' ? Math.max(0, live.length - current) : 1;
      nodesLost += lost;
      endWorkers(lost, event.timestamp, true);
      continue;
    }
    if (event.type === 'RUNNING') running = true;
    if (!sizeEvents.has(event.type) || typeof current !== 'number') continue;
    if (current > live.length)
      addWorkers(current - live.length, event.type === 'RUNNING' ? startMs : event.timestamp);
    else if (current < live.length) endWorkers(live.length - current, event.timestamp, false);
    maxWorkers = Math.max(maxWorkers, live.length);
  }
  if (live.length === 0 && maxWorkers === 0 && !sorted.some((event) => event.type === 'RUNNING')) {
    addWorkers(cluster.num_workers ?? cluster.autoscale?.min_workers ?? 0, startMs);
    maxWorkers = live.length;
  }
  for (const worker of live) {
    nodes.push({
      role: 'worker',
      nodeType: workerType,
      startMs: worker.startMs,
      endMs,
      market: worker.market,
    });
  }
  return { nodes, nodesLost, maxWorkers, startMs, endMs };
}
