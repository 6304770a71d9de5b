import { ValidationError } from '@setpoint/foundation/errors';
import { type CostModel, createCostModel } from '../../../cost/cost-model.js';
import { type ClusterTimeline, costRecord, runCost, type TimelineNode } from '../../../cost/run-cost.js';
import type { RunProfile } from '../../../eventlog/run-profile.js';
import type { PriceCatalog, VolumeSpec } from '../../../pricing/price-catalog.js';
import { defaultRegions } from '../../../pricing/regions.js';
import type { Cloud } from '../../../pricing/schema.js';
import type { CostInput, RunCoster } from '../../../service/runs/run-analysis.js';
import type { RunCost } from '../../../service/runs/run-records.js';
import { clusterEventSchema } from '../api/schema.js';
import {
  cloudOf,
  computeTypeOf,
  databricksBilling,
  databricksPlatformName,
  planOf,
} from '../cluster-shape/billing.js';
import { type DatabricksClusterShape, shapeOfCluster } from '../cluster-shape/cluster-shape.js';
import { volumesPerNodeOf } from '../cluster-shape/cost-spec.js';
import { reconstructNodeTimeline } from '../cluster-shape/node-timeline.js';
import { serverlessRunCost } from '../serverless/serverless-cost.js';
import { performanceTargetOf } from '../serverless/serverless-tasks.js';
import type { ClusterReport } from './cluster-report.js';
import { nodeTypeThatRan } from './node-types-ran.js';
import { parseClusterReport } from './run-report-reader.js';

/**
 * Costs a run with the price catalog, over the Spark application's span (what SLAs and predictions are
 * stated in). Which nodes ran, on which market and for how long comes from the cluster's own timeline
 * when the report carries its events; otherwise the driver and each executor of the event log count as
 * the cluster's nodes.
 */
export class CostEngineCoster implements RunCoster {
  readonly #model: CostModel;
  readonly #priced: PricedNodeType;

  constructor(catalog: PriceCatalog) {
    this.#model = createCostModel(catalog);
    this.#priced = (cloud, region, nodeType) => {
      try {
        catalog.onDemandPrice(cloud, region, nodeType);
        return true;
      } catch {
        return false;
      }
    };
  }

  async cost(input: CostInput): Promise<RunCost> {
    const serverless = input.clusterReport ? parseClusterReport(input.clusterReport).serverless : undefined;
    if (serverless)
      return serverlessRunCost(
        { ...serverless, performanceTarget: performanceTargetOf(serverless.performance_target) },
        { platform: databricksPlatformName, cloud: cloudOf(input.cluster.cloud, input.workspace?.cloud) },
      );
    return costRecord(runCost(this.#model, runTimeline(input, this.#priced)));
  }
}

/** The Spark application's start and end: what the run is priced over. */
function applicationSpan(profile: RunProfile): { start: number; end: number } {
  const start =
    profile.application.startTime ??
    Math.min(...profile.executors.timeline.map((e) => e.addedTime ?? Infinity));
  const end =
    profile.application.endTime ??
    (Number.isFinite(start) ? start + (profile.application.observedSpanMs ?? 0) : Number.NaN);
  if (!Number.isFinite(start) || !Number.isFinite(end)) {
    throw new ValidationError('RUN_TIMES_UNKNOWN', 'the event log has no application start and end times');
  }
  return { start, end };
}

/** The cluster's nodes from its events (clusters/get + events), clipped to the application's span. */
function nodesFromClusterEvents(
  report: ClusterReport,
  shape: DatabricksClusterShape,
  span: { start: number; end: number },
): TimelineNode[] | undefined {
  const events = (report.cluster_events?.events ?? []).flatMap((event) => {
    const parsed = clusterEventSchema.safeParse({ cluster_id: report.cluster.cluster_id ?? '', ...event });
    return parsed.success ? [parsed.data] : [];
  });
  if (!events.some((event) => event.type === 'RUNNING')) return undefined;
  return reconstructNodeTimeline(report.cluster, events, shape, span.end)
    .nodes.map((node) => ({
      ...node,
      startMs: Math.max(node.startMs, span.start),
      endMs: Math.min(node.endMs, span.end),
    }))
    .filter((node) => node.endMs > node.startMs || node.role === 'driver');
}

/**
 * The driver for the whole application; each executor as a worker for the time it was up within the
 * application (a log may carry an executor time outside it: it is never priced beyond the application).
 */
function nodesFromEventLog(
  profile: RunProfile,
  shape: DatabricksClusterShape,
  span: { start: number; end: number },
): TimelineNode[] {
  const executors = profile.executors.timeline.filter((executor) => executor.id !== 'driver');
  let onDemandWorkersLeft = Math.max(0, shape.firstOnDemand - 1);
  const workerNode = (addedMs: number, removedMs: number): TimelineNode => {
    const onDemand = shape.market === 'on-demand' || onDemandWorkersLeft > 0;
    if (onDemand && shape.market !== 'on-demand') onDemandWorkersLeft -= 1;
    const startMs = Math.min(Math.max(addedMs, span.start), span.end);
    return {
      role: 'worker',
      nodeType: shape.workerNodeType,
      startMs,
      endMs: Math.max(startMs, Math.min(removedMs, span.end)),
      market: onDemand ? 'on-demand' : shape.market,
    };
  };
  const workers =
    executors.length > 0
      ? executors.map((executor) =>
          workerNode(executor.addedTime ?? span.start, executor.removedTime ?? span.end),
        )
      : Array.from({ length: shape.workers }, () => workerNode(span.start, span.end));
  const driverMarket = shape.firstOnDemand >= 1 ? 'on-demand' : shape.market;
  return [
    {
      role: 'driver',
      nodeType: shape.driverNodeType,
      startMs: span.start,
      endMs: span.end,
      market: driverMarket,
    },
    ...workers,
  ];
}

/** Whether the price catalog prices a node type in a region. */
export type PricedNodeType = (cloud: Cloud, region: string, nodeType: string) => boolean;

/**
 * The shape with the node types that really ran (an alternate of a flexible node type), priced as such;
 * an alternate the catalog has no price for is priced as the requested type (the closest it knows).
 */
function asItRan(
  shape: DatabricksClusterShape,
  report: ClusterReport | null,
  priced: (nodeType: string) => boolean,
): DatabricksClusterShape {
  const ran = report?.node_types_ran;
  const known = (nodeType: string | null) => (nodeType && priced(nodeType) ? nodeType : null);
  const worker = known(nodeTypeThatRan(ran, false, shape.workerNodeType));
  const driver = known(nodeTypeThatRan(ran, true, shape.driverNodeType));
  if (!worker && !driver) return shape;
  return {
    ...shape,
    workerNodeType: worker ?? shape.workerNodeType,
    driverNodeType: driver ?? shape.driverNodeType,
  };
}

/** Each node carries the cluster's EBS volumes for as long as it ran (the run's own, priced as candidates' are). */
function withVolumes(nodes: TimelineNode[], volumes: VolumeSpec[]): TimelineNode[] {
  return volumes.length === 0 ? nodes : nodes.map((node) => ({ ...node, volumes }));
}

export function runTimeline(
  { profile, cluster, clusterReport: stored, workspace }: CostInput,
  priced: PricedNodeType = () => true,
): ClusterTimeline {
  const report = stored === null || stored === undefined ? null : parseClusterReport(stored);
  const cloud = cloudOf(cluster.cloud, workspace?.cloud);
  const region = cluster.region ?? workspace?.region ?? defaultRegions[cloud];
  const shape = asItRan(
    shapeOfCluster(report?.cluster ?? null, cloud, cluster, profile.executors.maxConcurrent),
    report,
    (nodeType) => priced(cloud, region, nodeType),
  );
  const span = applicationSpan(profile);
  return {
    cloud,
    region,
    billing: databricksBilling({
      plan: planOf(report?.plan_type ?? workspace?.planType),
      compute: computeTypeOf(report?.compute_type ?? workspace?.computeType),
      photon: shape.photon,
    }),
    nodes: withVolumes(
      (report && nodesFromClusterEvents(report, shape, span)) ?? nodesFromEventLog(profile, shape, span),
      volumesPerNodeOf(shape),
    ),
  };
}
