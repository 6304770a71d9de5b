import type { Workload } from '../workloads/schema.js';
import { type NewClusterLike, type SimClusterSpec, toSimClusterSpec } from './cluster-spec.js';
import type { SimulatedCost } from './cost.js';
import { databricksMetadataLine, renderEventLog, sparkVersionFor } from './event-log-writer.js';
import { type SimulationSettings, simulateCluster } from './simulate-cluster.js';
import type { ClusterSimulation, SimulationIdentity } from './simulation-types.js';

export interface SimulateRunOptions extends Partial<Omit<SimulationSettings, 'seed' | 'runIndex'>> {
  /** Epoch ms of the cluster request; the event log's timestamps start here. */
  startTimeMs?: number;
  identity?: Partial<SimulationIdentity>;
}

export interface SimulatedRun {
  /** Time from the first Spark job to the end of execution, ms. */
  runtimeMs: number;
  /** Time from the cluster request to its termination (what the cloud bills), ms. */
  totalDurationMs: number;
  outcome: 'SUCCESS' | 'FAILED';
  failureMessage?: string;
  cost: SimulatedCost;
  timeline: ClusterSimulation;
  /** The event log as Databricks delivers it in one piece (header first); rendered on first access. */
  readonly eventLogLines: string[];
}

export const defaultIdentity: SimulationIdentity = {
  clusterId: '0101-000000-sim00001',
  clusterName: 'job-0-run-0',
  sparkContextId: '7431920466355812345',
  driverIp: '10.0.0.4',
  workspaceId: '1234567890123456',
  region: 'us-west-2',
};

/**
 * Runs one workload on one cluster configuration in-process. Deterministic for (workload, cluster, seed,
 * runIndex), so a benchmark can replay thousands of runs without the HTTP emulator.
 */
export function simulateRun(
  workload: Workload,
  cluster: NewClusterLike | SimClusterSpec,
  seed: number,
  runIndex: number,
  options: SimulateRunOptions = {},
): SimulatedRun {
  const spec = 'nodeType' in cluster ? cluster : toSimClusterSpec(cluster);
  const timeline = simulateCluster(spec, [{ workload }], {
    seed,
    runIndex,
    ...(options.weeksElapsed === undefined ? {} : { weeksElapsed: options.weeksElapsed }),
    ...(options.noise === undefined ? {} : { noise: options.noise }),
  });
  const identity: SimulationIdentity = { ...defaultIdentity, ...options.identity };
  const startTimeMs = options.startTimeMs ?? Date.UTC(2026, 0, 5, 2, 0, 0) + runIndex * 86_400_000;
  let lines: string[] | undefined;
  return {
    runtimeMs: timeline.executionEndMs - timeline.executionStartMs,
    totalDurationMs: timeline.terminatedMs,
    outcome: timeline.outcome,
    ...(timeline.failureMessage === undefined ? {} : { failureMessage: timeline.failureMessage }),
    cost: timeline.cost,
    timeline,
    get eventLogLines(): string[] {
      lines ??= [
        databricksMetadataLine(sparkVersionFor(spec.sparkVersion), startTimeMs, 0, identity.sparkContextId),
        ...renderEventLog(timeline, identity, startTimeMs).map((entry) => entry.line),
      ];
      return lines;
    },
  };
}
