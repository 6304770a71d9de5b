import type { CostModel } from '../../../cost/cost-model.js';
import { estimateClusterCost } from '../../../cost/estimate.js';
import { costRecord } from '../../../cost/run-cost.js';
import type { Cloud } from '../../../pricing/schema.js';
import type { RecommenderRun } from '../../../service/recommender/recommender-run.js';
import { modelProfileFor } from '../../../service/runs/stored-profile.js';
import type { NewClusterSpec, Run } from '../api/schema.js';
import { shapeOfCluster } from '../cluster-shape/cluster-shape.js';
import { costSpecOf, type DatabricksBillingContext } from '../cluster-shape/cost-spec.js';
import { agentlessProfile } from '../system-tables/agentless-profile.js';

/** A finished run of a job not imported yet, with the job cluster it ran (a pool's node type filled in). */
export interface JobRunEvidence {
  run: Run;
  spec: NewClusterSpec;
}

export interface EvidenceContext {
  cloud: Cloud;
  billing: DatabricksBillingContext;
  /** Cores of a node type (the price catalog's instance table). */
  coresOf: (nodeType: string) => number | undefined;
  costModel: CostModel;
}

/** A run that ended is a success only as Databricks says so; anything else it reported is a failure. */
export const runSucceeded = (run: Run) => run.state.result_state === 'SUCCESS';

/**
 * A finished job run as the recommender reads a run, from what the Jobs API says of it before Setpoint has
 * collected anything: its runtime and outcome from the runs list, its cluster from the job's definition,
 * its cost from the price catalog for that cluster over that time, and a profile holding only those (built
 * as for a workspace without log delivery: `agentless-profile.ts`). What only an event log tells (stages,
 * spill, input size, utilization) stays unknown, so the model learns this job from its runtime on its
 * cluster and from the fleet. Null for a run without a positive duration.
 */
export function recommenderRunOf(evidence: JobRunEvidence, where: EvidenceContext): RecommenderRun | null {
  const { run, spec } = evidence;
  const endMs = run.end_time;
  if (!(endMs > run.start_time)) return null;
  const shape = shapeOfCluster(spec, where.cloud);
  const hours = (endMs - run.start_time) / 3_600_000;
  const workers = shape.autoscale?.maxWorkers ?? shape.workers;
  const cost = estimateClusterCost(
    where.costModel,
    costSpecOf(shape, where.billing),
    { kind: 'fixed', workers },
    hours,
  );
  const nodes = [
    { nodeType: shape.driverNodeType, driver: true, nodes: 1 },
    { nodeType: shape.workerNodeType, driver: false, nodes: workers },
  ].map((group) => ({
    ...group,
    nodeMinutes: group.nodes * hours * 60,
    firstStartMs: run.start_time,
    lastEndMs: endMs,
    cpuUserPercent: 0,
    cpuSystemPercent: 0,
    cpuWaitPercent: 0,
    memUsedPercent: 0,
    memUsedMaxPercent: 0,
    networkSentBytes: 0,
    networkReceivedBytes: 0,
    instances: [],
  }));
  const clusterId = run.cluster_instance?.cluster_id ?? `job-run-${run.run_id}`;
  const availability = spec.aws_attributes?.availability ?? spec.azure_attributes?.availability ?? null;
  const profile = agentlessProfile({
    clusterId,
    execution: { startMs: run.start_time, endMs },
    failed: !runSucceeded(run),
    nodes,
    cluster: {
      clusterId,
      driverNodeType: shape.driverNodeType,
      workerNodeType: shape.workerNodeType,
      workerCount: spec.num_workers ?? null,
      minAutoscaleWorkers: spec.autoscale?.min_workers ?? null,
      maxAutoscaleWorkers: spec.autoscale?.max_workers ?? null,
      dbrVersion: spec.spark_version ?? null,
      availability,
      firstOnDemand: shape.firstOnDemand,
    },
    cloud: where.cloud,
    region: where.billing.region,
    photon: shape.photon,
    coresOf: where.coresOf,
  });
  return {
    id: `job-run-${run.run_id}`,
    externalRunId: String(run.run_id),
    status: run.state.result_state ?? null,
    startedAt: run.start_time,
    endedAt: endMs,
    cluster: {
      source: 'cluster_report',
      cloud: where.cloud,
      region: where.billing.region,
      nodeTypeId: shape.workerNodeType,
      driverNodeTypeId: shape.driverNodeType,
      workers: spec.num_workers ?? null,
      autoscale: shape.autoscale,
      photon: shape.photon,
      availability,
      sparkVersion: spec.spark_version ?? null,
    },
    clusterConfig: spec,
    profile: modelProfileFor(profile),
    cost: costRecord(cost),
    inputBytes: null,
    recommendationId: null,
  };
}
