import { ValidationError } from '@setpoint/foundation/errors';
import type { TimelineNode } from '../../../cost/run-cost.js';
import type { Cluster, ClusterEvent } from '../api/schema.js';

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
  market: 'on-demand' | 'spot';
}

export interface NodeTimelineSummary {
  nodes: TimelineNode[];
  /** Workers lost (spot reclaimed or failed hardware) during the run. */
  nodesLost: number;
  maxWorkers: number;
  startMs: number;
  endMs: number;
}

function attribute(cluster: Cluster, name: string): unknown {
  return (
    (cluster.aws_attributes as Record<string, unknown> | undefined)?.[name] ??
    (cluster.azure_attributes as Record<string, unknown> | undefined)?.[name]
  );
}

/**
 * Rebuilds every instance's life from clusters/get and the cluster's events: nodes start when the
 * cluster is created or grows, end when it shrinks, loses nodes, or terminates. Each replacement of
 * a lost node is a node of its own. Spot vs on-demand follows `availability` and `first_on_demand`
 * (the driver and the first `first_on_demand − 1` workers stay on-demand); with fallback, workers
 * Databricks could not get as spot are still counted as spot, which the cost range covers.
 */
export function reconstructNodeTimeline(
  cluster: Cluster,
  events: ClusterEvent[],
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

  const availability = String(attribute(cluster, 'availability') ?? 'ON_DEMAND');
  const usesSpot = availability.startsWith('SPOT');
  const firstOnDemand = Number(attribute(cluster, 'first_on_demand') ?? 1);
  const workerType = cluster.node_type_id ?? 'unknown';
  const driverType = cluster.driver_node_type_id ?? workerType;
  const nodes: TimelineNode[] = [
    {
      role: 'driver',
      nodeType: driverType,
      startMs,
      endMs,
      market: usesSpot && firstOnDemand < 1 ? 'spot' : 'on-demand',
    },
  ];

  const live: LiveWorker[] = [];
  let nodesLost = 0;
  let maxWorkers = 0;
  let onDemandWorkersLeft = Math.max(0, firstOnDemand - 1);
  const addWorkers = (count: number, at: number) => {
    for (let index = 0; index < count; index += 1) {
      const onDemand = !usesSpot || onDemandWorkersLeft > 0;
      if (onDemand && usesSpot) onDemandWorkersLeft -= 1;
      live.push({ startMs: at, market: onDemand ? 'on-demand' : 'spot' });
    }
  };
  const endWorkers = (count: number, at: number, preferSpot: boolean) => {
    for (let index = 0; index < count && live.length > 0; index += 1) {
      const spotIndex = preferSpot ? live.findLastIndex((worker) => worker.market === 'spot') : -1;
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
    const current = (event.details as Record<string, unknown>).current_num_workers;
    if (event.type === 'NODES_LOST') {
      const lost = typeof current === 'number' ? Math.max(0, live.length - current) : 1;
      nodesLost += lost;
      endWorkers(lost, event.timestamp, true);
      continue;
    }
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
