import { parseReportWithoutLog, totalsWithoutLog } from '../../../eventlog/profile-without-log.js';
import { type RunProfile, runProfileSchemaVersion } from '../../../eventlog/run-profile.js';
import type { ClusterAndTimeline, NodeUsageSummary } from './system-tables-reader.js';

export interface AgentlessInput {
  clusterId: string;
  /** When the project's tasks started and finished executing (the runtime SLAs are stated in). */
  execution: { startMs: number; endMs: number };
  failed: boolean;
  nodes: NodeUsageSummary[];
  cluster: ClusterAndTimeline['cluster'];
  cloud: string;
  region: string | null;
  photon: boolean;
  /** Cores of a node type (the price catalog's instance table). */
  coresOf: (nodeType: string) => number | undefined;
}

/**
 * A run profile from system tables alone, for workspaces without cluster log delivery: the runtime
 * from the task timeline, the cluster's nodes and their cores from the node timeline, and utilization
 * from its per-minute CPU. What only an event log knows (stages, tasks, spill, input bytes) stays zero;
 * `source.path` names where the profile came from so nothing mistakes it for a parsed log.
 */
export function agentlessProfile(input: AgentlessInput): RunProfile {
  const { startMs, endMs } = input.execution;
  const wallTimeMs = Math.max(0, endMs - startMs);
  const workers = input.nodes.filter((node) => !node.driver);
  const driver = input.nodes.find((node) => node.driver);
  const coresOf = (nodeType: string) => input.coresOf(nodeType) ?? 4;
  const executors = workers.flatMap((group) =>
    Array.from({ length: group.nodes }, (_, index) => ({
      id: String(index + 1),
      host: null,
      cores: coresOf(group.nodeType),
      addedTime: Math.max(startMs, group.firstStartMs),
      removedTime: Math.min(endMs, group.lastEndMs),
      removedReason: null,
      tasks: 0,
      failedTasks: 0,
      taskTimeMs: 0,
      jvmGcTimeMs: 0,
      inputBytes: 0,
      shuffleReadBytes: 0,
      shuffleWriteBytes: 0,
    })),
  );
  const coreHoursAvailable = workers.reduce(
    (sum, group) => sum + (group.nodeMinutes * coresOf(group.nodeType)) / 60,
    0,
  );
  const coreHoursUsed = workers.reduce(
    (sum, group) =>
      sum +
      ((group.nodeMinutes * coresOf(group.nodeType)) / 60) *
        ((group.cpuUserPercent + group.cpuSystemPercent) / 100),
    0,
  );
  const networkBytes = workers.reduce(
    (sum, group) => sum + group.networkReceivedBytes + group.networkSentBytes,
    0,
  );
  const cpuMs = coreHoursUsed * 3_600_000;
  const coresObserved = executors.reduce((sum, executor) => sum + executor.cores, 0);
  const cluster = input.cluster;
  const profile: RunProfile = {
    schemaVersion: runProfileSchemaVersion,
    source: {
      path: `databricks-system-tables://${input.clusterId}`,
      layout: 'databricks',
      inProgress: false,
      parts: [],
    },
    application: {
      id: null,
      name: null,
      attemptId: null,
      sparkVersion: null,
      user: null,
      startTime: startMs,
      endTime: endMs,
      durationMs: wallTimeMs,
      observedSpanMs: wallTimeMs,
      exitCode: input.failed ? 1 : 0,
      sparkContextId: null,
    },
    platform: {
      kind: 'databricks',
      master: null,
      cloud: input.cloud,
      region: input.region,
      workerNodeType: cluster?.workerNodeType ?? workers[0]?.nodeType ?? null,
      driverNodeType: cluster?.driverNodeType ?? driver?.nodeType ?? null,
      workers: cluster?.workerCount ?? null,
      autoscale:
        cluster?.minAutoscaleWorkers !== null &&
        cluster?.minAutoscaleWorkers !== undefined &&
        cluster.maxAutoscaleWorkers !== null
          ? { minWorkers: cluster.minAutoscaleWorkers, maxWorkers: cluster.maxAutoscaleWorkers }
          : null,
      photon: input.photon,
      runtimeVersion: cluster?.dbrVersion ?? null,
      clusterId: input.clusterId,
      availability: cluster?.availability ?? null,
      evidence: [
        'system.compute.node_timeline',
        'system.compute.clusters',
        'system.lakeflow.job_run_timeline',
      ],
      databricksTags: {},
    },
    sparkConf: {},
    executors: {
      totalAdded: executors.length,
      totalRemoved: executors.length,
      maxConcurrent: executors.length,
      coresPerExecutor: executors[0]?.cores ?? 0,
      timeline: executors,
    },
    jobs: [],
    stages: [],
    sqlExecutions: [],
    totals: {
      ...totalsWithoutLog(),
      executorRunTimeMs: cpuMs,
      executorCpuTimeMs: cpuMs,
      shuffleReadBytes: networkBytes / 2,
      shuffleRemoteBytesRead: networkBytes / 2,
      shuffleWriteBytes: networkBytes / 2,
    },
    analysis: {
      wallTimeMs,
      executorTimeMs: wallTimeMs,
      driverTimeMs: 0,
      criticalPathMs: 0,
      idealTimeMs: coresObserved > 0 ? cpuMs / coresObserved : wallTimeMs,
      coresObserved,
      coreHoursAvailable,
      coreHoursUsed,
      utilization: coreHoursAvailable > 0 ? Math.min(1, coreHoursUsed / coreHoursAvailable) : 0,
    },
    whatIf: [],
    findings: [],
    parse: parseReportWithoutLog(
      'no event log: profile from Databricks system tables (runtime, nodes, utilization)',
    ),
  };
  return profile;
}
