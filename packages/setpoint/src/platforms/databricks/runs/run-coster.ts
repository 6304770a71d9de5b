import { ValidationError } from '@setpoint/foundation/errors';
import { type CostModel, createCostModel } from '../../../cost/cost-model.js';
import { type ClusterTimeline, runCost, type TimelineNode } from '../../../cost/run-cost.js';
import type { PriceCatalog } from '../../../pricing/price-catalog.js';
import type { ComputeType, Plan } from '../../../pricing/schema.js';
import type { CostInput, RunCoster } from '../../../service/runs/run-analysis.js';
import type { RunCost } from '../../../service/runs/run-records.js';
import { parseClusterReport } from './run-report-reader.js';

const defaultRegion = { aws: 'us-east-1', azure: 'eastus' } as const;

const computeTypes: Record<string, ComputeType> = {
  'jobs compute': 'jobs',
  'jobs compute light': 'jobs-light',
  'all-purpose compute': 'all-purpose',
};

/**
 * Costs a run with the price catalog: the driver for the whole application, each executor as a
 * worker node for the time it was up (or the cluster's worker count when the log has no executors).
 */
export class CostEngineCoster implements RunCoster {
  readonly #model: CostModel;

  constructor(catalog: PriceCatalog) {
    this.#model = createCostModel(catalog);
  }

  async cost(input: CostInput): Promise<RunCost> {
    const breakdown = runCost(this.#model, runTimeline(input));
    return {
      currency: 'USD',
      totalUsd: breakdown.total,
      lines: [
        { item: 'cloud compute', usd: breakdown.cloud.compute },
        { item: 'cloud storage', usd: breakdown.cloud.storage },
        { item: `Databricks DBUs (${breakdown.dbu.units.toFixed(2)} DBU)`, usd: breakdown.dbu.cost },
        { item: 'total low', usd: breakdown.low },
        { item: 'total high', usd: breakdown.high },
      ],
    };
  }
}

export function runTimeline({
  profile,
  cluster,
  clusterReport: stored,
  workspace,
}: CostInput): ClusterTimeline {
  const clusterReport = stored === null || stored === undefined ? null : parseClusterReport(stored);
  // event-log hints say "AWS"/"Azure"; the catalog keys are lower-case
  const cloud = (cluster.cloud ?? workspace?.cloud ?? 'aws').toLowerCase();
  if (cloud !== 'aws' && cloud !== 'azure') {
    throw new ValidationError(
      'RUN_CLOUD_UNSUPPORTED',
      `cannot cost a run on cloud "${cloud}" (aws and azure are priced)`,
    );
  }
  const workerType = cluster.nodeTypeId;
  if (!workerType) {
    throw new ValidationError(
      'RUN_NODE_TYPE_UNKNOWN',
      'the run names no worker node type: upload a cluster_report or an event log with Databricks cluster tags',
    );
  }
  const driverType = cluster.driverNodeTypeId ?? workerType;
  const start =
    profile.application.startTime ??
    Math.min(...profile.executors.timeline.map((e) => e.addedTime ?? Infinity));
  const end =
    profile.application.endTime ??
    (Number.isFinite(start) ? start + (profile.application.observedSpanMs ?? 0) : Number.NaN);
  if (!Number.isFinite(start) || !Number.isFinite(end)) {
    throw new ValidationError('RUN_TIMES_UNKNOWN', 'the event log has no application start and end times');
  }
  const spot = (cluster.availability ?? '').toUpperCase().includes('SPOT');
  const plan = (clusterReport?.plan_type ?? workspace?.planType ?? 'premium').toLowerCase() as Plan;
  const compute =
    computeTypes[(clusterReport?.compute_type ?? workspace?.computeType ?? 'jobs compute').toLowerCase()] ??
    'jobs';
  const executors = profile.executors.timeline.filter((executor) => executor.id !== 'driver');
  const workerNode = (startMs: number, endMs: number): TimelineNode => ({
    role: 'worker',
    nodeType: workerType,
    startMs,
    endMs: Math.max(startMs, endMs),
    market: spot ? 'spot' : 'on-demand',
  });
  const workers =
    executors.length > 0
      ? executors.map((executor) => workerNode(executor.addedTime ?? start, executor.removedTime ?? end))
      : Array.from({ length: cluster.workers ?? 0 }, () => workerNode(start, end));
  return {
    cloud,
    region: cluster.region ?? workspace?.region ?? defaultRegion[cloud],
    billing: { platform: 'databricks', plan, compute, photon: cluster.photon ?? false },
    nodes: [
      { role: 'driver', nodeType: driverType, startMs: start, endMs: end, market: 'on-demand' },
      ...workers,
    ],
  };
}
