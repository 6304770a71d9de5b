import { createCostModel } from '../../../cost/cost-model.js';
import { runCost } from '../../../cost/run-cost.js';
import type { PriceCatalog } from '../../../pricing/price-catalog.js';
import { defaultRegions } from '../../../pricing/regions.js';
import { type ClusterEvent, clusterEventSchema } from '../api/schema.js';
import {
  cloudOf,
  computeTypeOf,
  databricksBilling,
  dbuCharge,
  dbuFee,
  planOf,
} from '../cluster-shape/billing.js';
import { shapeOfCluster } from '../cluster-shape/cluster-shape.js';
import {
  launchWindowOf,
  nodesFromInstances,
  nodeTimelineComplete,
  type ObservedInstance,
} from '../cluster-shape/instance-timeline.js';
import { reconstructNodeTimeline } from '../cluster-shape/node-timeline.js';
import type { ClusterReport } from '../runs/cluster-report.js';
import type { PricedLaunchWindow } from './launch-delay.js';

export interface DbuEstimate {
  dbus: number;
  usd: number;
  /** Where each node's start and end came from. */
  timing: 'node-timeline' | 'cluster-events';
  /** The launch delay the nodes were placed with (null: the middle of each first minute, or events). */
  launchDelayMs: number | null;
  /** Each node's launch window from the node timeline, kept to learn the launch delay from the bill. */
  launchWindows: PricedLaunchWindow[];
}

/** A cluster says its cloud by its attributes: clusters/get answers `azure_attributes` on Azure only. */
function reportedCloud(report: ClusterReport): string | null {
  if (report.cluster.azure_attributes) return 'azure';
  if (report.cluster.aws_attributes) return 'aws';
  return null;
}

/**
 * The DBUs a job cluster should be billed for its whole life at the catalog's list price: what
 * `system.billing.usage` is later compared with. Each node counts from its own start to its own end:
 * per instance from system.compute.node_timeline (placed within its first and last minute by the
 * cluster's events, and at the workspace's learned launch delay when it has one) once that covers the
 * terminated cluster, else as the cluster's events show it.
 * The run's cost in the pipeline is over the Spark application's span instead, which is what SLAs compare.
 */
export function estimateClusterDbus(
  catalog: PriceCatalog,
  report: ClusterReport,
  workspace: { cloud: string | null; region: string | null },
  instances: ObservedInstance[] = [],
  launchDelayMs: number | null = null,
): DbuEstimate {
  const cloud = cloudOf(reportedCloud(report), workspace.cloud);
  const shape = shapeOfCluster(report.cluster, cloud, null, 0);
  const events = (report.cluster_events?.events ?? []).flatMap((event): ClusterEvent[] => {
    const parsed = clusterEventSchema.safeParse({ cluster_id: report.cluster.cluster_id ?? '', ...event });
    return parsed.success ? [parsed.data] : [];
  });
  const timeline = reconstructNodeTimeline(report.cluster, events, shape);
  const bounds = {
    createdMs: timeline.startMs,
    terminatedMs: report.cluster.terminated_time,
  };
  const fromInstances = nodeTimelineComplete(instances, bounds);
  const model = createCostModel(catalog);
  const priced = {
    cloud,
    // the workspace's region names a region of its own cloud only
    region: (cloud === cloudOf(null, workspace.cloud) ? workspace.region : null) ?? defaultRegions[cloud],
    billing: databricksBilling({
      plan: planOf(report.plan_type),
      compute: computeTypeOf(report.compute_type),
      photon: shape.photon,
    }),
  };
  const breakdown = runCost(model, {
    ...priced,
    nodes: fromInstances
      ? nodesFromInstances(instances, events, bounds, shape, launchDelayMs)
      : timeline.nodes,
  });
  const launchWindows = fromInstances
    ? instances.map((instance) => ({
        ...launchWindowOf(instance, bounds),
        dbusPerHour:
          model
            .nodeRate({ ...priced, nodeType: instance.nodeType, market: 'on-demand', volumes: [] })
            .fees.find((rate) => rate.fee.fee === dbuFee)?.unitsPerHour ?? 0,
      }))
    : [];
  return {
    ...dbuCharge(breakdown.components),
    timing: fromInstances ? 'node-timeline' : 'cluster-events',
    launchDelayMs: fromInstances ? launchDelayMs : null,
    launchWindows,
  };
}
