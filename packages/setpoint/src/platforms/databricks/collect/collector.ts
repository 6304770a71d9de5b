import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, open, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { isAppError } from '@setpoint/foundation/errors';
import { isPermanentS3Error, type S3Client } from '@setpoint/foundation/s3';
import type { Logger } from '../../../logging/logger.js';
import { PermanentJobError } from '../../../queue/job-queue.js';
import type { ApplyService } from '../../../service/apply/apply-service.js';
import type { Project, ProjectService } from '../../../service/projects/project-service.js';
import type { RunService, UploadedFile } from '../../../service/runs/run-service.js';
import type { DatabricksClient } from '../api/client.js';
import type { Cluster, Run, RunTask } from '../api/schema.js';
import type { ObservedInstance } from '../cluster-shape/instance-timeline.js';
import type { ConnectWorkspace } from '../connection/workspace-connection.js';
import { type JobClusterRef, parseClusterRefKey } from '../jobs/job-clusters.js';
import type { ClusterReport } from '../runs/cluster-report.js';
import { nodeTypesRanOf } from '../runs/node-types-ran.js';
import { projectRunSpan } from '../runs/project-run-span.js';
import type { ServerlessBillingReader } from '../serverless/serverless-billing-reader.js';
import { collectServerlessRun } from '../serverless/serverless-collector.js';
import { serverlessProjectKey } from '../serverless/serverless-tasks.js';
import type { DatabricksRepository } from '../store/databricks-repository.js';
import { agentlessProfile } from '../system-tables/agentless-profile.js';
import type { NodeUsageSummary, SystemTablesReader } from '../system-tables/system-tables-reader.js';
import { checkEventLogCompleteness, locateEventLogDir } from './event-log-location.js';
import { dbfsLogStore, type LogStore, volumesLogStore } from './log-store.js';
import { s3LogStore } from './log-store-s3.js';

const terminalStates = new Set(['TERMINATED', 'SKIPPED', 'INTERNAL_ERROR']);

export interface CollectorDependencies {
  connect: ConnectWorkspace;
  store: DatabricksRepository;
  projects: Pick<ProjectService, 'get' | 'list'>;
  runs: Pick<RunService, 'createFromUpload' | 'createWithoutEventLog' | 'createWithProfile' | 'findExisting'>;
  /** The apply core's SLA guard, told of each run on a project's cluster. */
  runFinished: ApplyService['runFinished'];
  scratchDir: string;
  logger: Logger;
  /** How long to wait between the two listings that prove the log stopped growing. */
  completenessPollMs: number;
  /** Attempts after which an incomplete log is collected anyway and marked incomplete. */
  maxIncompleteAttempts: number;
  /** The workspace's system tables, when it has a SQL warehouse for them. */
  systemTables: (workspaceId: string) => Promise<SystemTablesReader | undefined>;
  /** After a run is stored: its DBU estimate waits for the bill. */
  runStored: (input: {
    runId: string;
    projectId: string;
    databricksRunId: string;
    report: ClusterReport;
    /** The cluster's instances in system.compute.node_timeline, for timing each node. */
    instances: ObservedInstance[];
  }) => Promise<void>;
  /** Cores of a node type, for profiles built from system tables. */
  coresOf: (cloud: string, nodeType: string) => number | undefined;
  /** The workspace's serverless usage in system tables, when it has a SQL warehouse for them. */
  serverlessBilling: (workspaceId: string) => Promise<ServerlessBillingReader | undefined>;
}

type WorkspaceFacts = {
  id: string;
  planType: string | null;
  computeType: string | null;
  cloud: string | null;
  region: string | null;
};

function observedInstances(nodes: NodeUsageSummary[]): ObservedInstance[] {
  return nodes.flatMap((group) =>
    group.instances.map((instance) => ({ ...instance, driver: group.driver, nodeType: group.nodeType })),
  );
}

/** Retry later: the run or its log is not there yet. */
export class NotReadyYet extends Error {}

function tasksOnCluster(run: Run, ref: JobClusterRef): RunTask[] {
  return (run.tasks ?? []).filter((task) =>
    ref.kind === 'job_cluster' ? task.job_cluster_key === ref.jobClusterKey : task.task_key === ref.taskKey,
  );
}

interface LogLocation {
  store: LogStore;
  destination: string;
  /** S3 object times come from S3's clock; completeness then rests on the cluster's delivery record. */
  timesFromOtherClock: boolean;
}

function logStoreFor(
  client: DatabricksClient,
  s3: S3Client | undefined,
  cluster: Cluster,
): LogLocation | undefined {
  const conf = (cluster.cluster_log_conf ?? {}) as {
    dbfs?: { destination?: string };
    volumes?: { destination?: string };
    s3?: { destination?: string };
  };
  if (conf.dbfs?.destination)
    return { store: dbfsLogStore(client), destination: conf.dbfs.destination, timesFromOtherClock: false };
  if (conf.volumes?.destination)
    return {
      store: volumesLogStore(client),
      destination: conf.volumes.destination,
      timesFromOtherClock: false,
    };
  if (conf.s3?.destination) {
    if (!s3)
      throw new PermanentJobError(
        `cluster ${cluster.cluster_id} delivers its logs to ${conf.s3.destination}, but the workspace has no AWS credentials to read them (add aws_access_key_id and aws_secret_access_key to its credentials)`,
      );
    return { store: s3LogStore(s3), destination: conf.s3.destination, timesFromOtherClock: true };
  }
  return undefined;
}

/** Spark writes whole lines; a live file not ending in one was cut off mid-write. */
async function endsWithNewline(filePath: string): Promise<boolean> {
  const handle = await open(filePath, 'r');
  try {
    const { size } = await handle.stat();
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    await handle.close();
  }
}

async function download(
  store: LogStore,
  files: { path: string; name: string }[],
  directory: string,
): Promise<UploadedFile[]> {
  const downloaded: UploadedFile[] = [];
  for (const file of files) {
    const target = path.join(directory, file.name);
    let bytes = 0;
    const chunks = store.read(file.path);
    await pipeline(
      (async function* () {
        for await (const chunk of chunks) {
          bytes += chunk.length;
          yield chunk;
        }
      })(),
      createWriteStream(target),
    );
    downloaded.push({ name: file.name, path: target, bytes });
  }
  return downloaded;
}

/**
 * Collects a finished job run for every project on the job: the run, its cluster and events, and
 * the delivered event log once delivery is complete (or, after a bounded wait, what exists, marked
 * incomplete), then hands it to the pipeline. Afterwards the guardrails run: a failed or badly
 * late run on a freshly applied configuration is reverted, an edit by someone else pauses auto-apply.
 */
export function createCollector(deps: CollectorDependencies) {
  async function collectForProject(
    client: DatabricksClient,
    s3: S3Client | undefined,
    workspace: WorkspaceFacts,
    run: Run,
    project: Project,
    attempt: number,
  ) {
    if (project.clusterKey === serverlessProjectKey) {
      await collectServerless(workspace, run, project);
      return;
    }
    const ref = project.jobId && project.clusterKey ? parseClusterRefKey(project.clusterKey) : undefined;
    // a project not linked to a job cluster (a one-time run submitted for it) owns every task of the run
    const tasks = ref ? tasksOnCluster(run, ref) : (run.tasks ?? []);
    const clusterId = tasks.find((task) => task.cluster_instance?.cluster_id)?.cluster_instance?.cluster_id;
    if (!clusterId) {
      deps.logger.info({ projectId: project.id, runId: run.run_id }, 'run used no cluster of this project');
      return;
    }
    const externalRunId = String(run.run_id);
    if (await deps.runs.findExisting(project.id, externalRunId)) return;
    const cluster = await client.getCluster(clusterId);
    const events = await client.listClusterEvents(clusterId);
    const location = logStoreFor(client, s3, cluster);
    const systemTables = await deps.systemTables(workspace.id);
    const clusterReport: ClusterReport = {
      plan_type: workspace.planType ?? 'Premium',
      compute_type: workspace.computeType ?? 'Jobs Compute',
      cluster: cluster as ClusterReport['cluster'],
      cluster_events: {
        events: events as unknown as Record<string, unknown>[],
        total_count: events.length,
      },
      tasks: tasks as unknown as NonNullable<ClusterReport['tasks']>,
    };
    // with flexible node types an alternate may have run: the node timeline says which (when it is there yet)
    const ranNodes = location && systemTables ? await nodeUsageOrNone(systemTables, clusterId) : undefined;
    if (ranNodes && ranNodes.length > 0) clusterReport.node_types_ran = nodeTypesRanOf(ranNodes);
    let stored: { runId: string; nodes?: NodeUsageSummary[] } | undefined;
    if (!location) {
      if (!systemTables)
        throw new PermanentJobError(
          `cluster ${clusterId} has no DBFS, Volumes or S3 log delivery and the workspace has no SQL warehouse for system tables; re-import the job so Setpoint can set cluster_log_conf, or give the workspace a SQL warehouse (workspaces check --sql-warehouse-id)`,
        );
      stored = await collectAgentless(systemTables, workspace, run, project, attempt, {
        clusterId,
        tasks,
        clusterReport,
      });
    } else {
      try {
        stored = await collectLog(run, project, attempt, {
          clusterId,
          cluster,
          tasks,
          location,
          clusterReport,
        });
      } catch (error) {
        if (isPermanentS3Error(error))
          throw new PermanentJobError(
            `cannot read the event log of run ${externalRunId}: ${(error as Error).message}`,
          );
        throw error;
      }
    }
    if (stored && systemTables)
      await deps.runStored({
        runId: stored.runId,
        projectId: project.id,
        databricksRunId: externalRunId,
        report: clusterReport,
        instances: observedInstances(stored.nodes ?? (await nodeUsageOrNone(systemTables, clusterId))),
      });
    if (ref) await guard(project, run, tasks);
  }

  /** The job's serverless tasks: no cluster, no log; runtime from the Jobs API, cost from system tables. */
  async function collectServerless(workspace: WorkspaceFacts, run: Run, project: Project) {
    const billing = await deps.serverlessBilling(workspace.id);
    if (!billing)
      throw new PermanentJobError(
        `run ${run.run_id} ran on serverless compute, which is billed only in system.billing.usage, and workspace ${workspace.id} has no SQL warehouse for system tables; give it one (workspaces check --sql-warehouse-id)`,
      );
    const span = await collectServerlessRun(deps, billing, { workspace, run, project });
    if (span)
      await deps.runFinished(project.id, {
        label: `run ${run.run_id}`,
        runtimeMinutes: span.runtimeMinutes,
        failed: span.failed,
        failure: span.failure,
        startedAt: null,
      });
  }

  /** The node timeline times each node of the estimate; without it the cluster's events do. */
  async function nodeUsageOrNone(
    systemTables: SystemTablesReader,
    clusterId: string,
  ): Promise<NodeUsageSummary[]> {
    try {
      return await systemTables.nodeUsage(clusterId);
    } catch (error) {
      deps.logger.warn(
        { clusterId, error: (error as Error).message },
        'system.compute.node_timeline unreadable: nodes are timed from cluster events',
      );
      return [];
    }
  }

  /**
   * No log delivery: the run is described from system tables (runtime, nodes, utilization), once the
   * node timeline of its cluster is there; its cluster events still time the nodes for the cost.
   */
  async function collectAgentless(
    systemTables: SystemTablesReader,
    workspace: WorkspaceFacts,
    run: Run,
    project: Project,
    attempt: number,
    {
      clusterId,
      tasks,
      clusterReport,
    }: { clusterId: string; tasks: RunTask[]; clusterReport: ClusterReport },
  ): Promise<{ runId: string; nodes: NodeUsageSummary[] } | undefined> {
    const externalRunId = String(run.run_id);
    const nodes = await systemTables.nodeUsage(clusterId);
    if (nodes.length === 0) {
      if (attempt < deps.maxIncompleteAttempts)
        throw new NotReadyYet(`system.compute.node_timeline has no rows for cluster ${clusterId} yet`);
      const { run: created } = await deps.runs.createWithoutEventLog({
        projectId: project.id,
        externalRunId,
        clusterReport,
        status: 'INCOMPLETE',
        incompleteReason: `no event log and no node timeline for cluster ${clusterId} within the wait`,
      });
      return { runId: created.id, nodes };
    }
    clusterReport.node_types_ran = nodeTypesRanOf(nodes);
    const { cluster } = await systemTables.clusterAndTimeline(clusterId, externalRunId);
    const span = projectRunSpan(run, tasks);
    const executing = tasks.filter((task) => task.start_time);
    const startMs = executing.length
      ? Math.min(...executing.map((task) => (task.start_time ?? 0) + (task.setup_duration ?? 0)))
      : span.startTime;
    const cloud = (workspace.cloud ?? 'aws').toLowerCase();
    const spec = clusterReport.cluster as { runtime_engine?: string; spark_version?: string };
    const profile = agentlessProfile({
      clusterId,
      execution: { startMs, endMs: startMs + span.runtimeMinutes * 60_000 },
      failed: span.failed,
      nodes,
      cluster,
      cloud,
      region: workspace.region,
      photon: spec.runtime_engine === 'PHOTON' || (spec.spark_version ?? '').includes('-photon-'),
      coresOf: (nodeType) => deps.coresOf(cloud, nodeType),
    });
    const { run: created } = await deps.runs.createWithProfile({
      projectId: project.id,
      externalRunId,
      clusterReport,
      status: span.failed ? (run.state.result_state ?? 'FAILED') : 'SUCCESS',
      profile,
    });
    return { runId: created.id, nodes };
  }

  /** Waits for a complete delivery (bounded), downloads the event log and stores the run. */
  async function collectLog(
    run: Run,
    project: Project,
    attempt: number,
    {
      clusterId,
      cluster,
      tasks,
      location,
      clusterReport,
    }: {
      clusterId: string;
      cluster: Cluster;
      tasks: RunTask[];
      location: LogLocation;
      clusterReport: ClusterReport;
    },
  ): Promise<{ runId: string } | undefined> {
    const externalRunId = String(run.run_id);
    const sparkContextId = tasks.find((task) => task.cluster_instance?.spark_context_id)?.cluster_instance
      ?.spark_context_id;
    // a job cluster's work ends with its own tasks: in a pipeline, an early cluster is done long before the run
    const span = projectRunSpan(run, tasks);
    const workEnd = span.endTime;
    const deliveryClock = location.timesFromOtherClock
      ? {
          endTime: Math.max(workEnd, cluster.terminated_time ?? 0),
          lastAttempt: cluster.cluster_log_status?.last_attempted ?? 0,
        }
      : { endTime: workEnd, lastAttempt: undefined };
    const lastAttempt = attempt >= deps.maxIncompleteAttempts;
    let files: Awaited<ReturnType<LogStore['list']>>;
    let incomplete: string | undefined;
    try {
      const dir = await locateEventLogDir(location.store, location.destination, clusterId, sparkContextId);
      const first = await location.store.list(dir);
      const before = checkEventLogCompleteness(first, deliveryClock.endTime);
      await new Promise((resolve) => setTimeout(resolve, deps.completenessPollMs));
      files = await location.store.list(dir);
      const check = checkEventLogCompleteness(
        files,
        deliveryClock.endTime,
        before.totalBytes,
        deliveryClock.lastAttempt,
      );
      if (!check.complete) incomplete = check.reason;
    } catch (error) {
      if (!(isAppError(error) && error.code === 'EVENT_LOG_NOT_DELIVERED')) throw error;
      if (!lastAttempt) throw new NotReadyYet(error.message);
      // the bounded wait is over: keep the run (cluster, events, outcome) without its event log
      deps.logger.warn(
        { projectId: project.id, runId: externalRunId, reason: error.message },
        'no event log was delivered; the run is recorded as incomplete',
      );
      files = [];
      incomplete = error.message;
    }
    if (incomplete && !lastAttempt)
      throw new NotReadyYet(`event log of run ${externalRunId} is not complete yet: ${incomplete}`);
    const parts = files.filter((file) => !file.isDir && file.name.startsWith('eventlog') && file.size > 0);
    if (parts.length === 0) {
      const { run: created } = await deps.runs.createWithoutEventLog({
        projectId: project.id,
        externalRunId,
        clusterReport,
        status: 'INCOMPLETE',
        incompleteReason: `no event log was delivered within the wait (${incomplete ?? 'no eventlog files'})`,
      });
      return { runId: created.id };
    }
    await mkdir(deps.scratchDir, { recursive: true });
    const directory = await mkdtemp(path.join(deps.scratchDir, 'collect-'));
    try {
      const downloaded = await download(location.store, parts, directory);
      const live = downloaded.find((file) => file.name === 'eventlog');
      if (live && !(await endsWithNewline(live.path)))
        incomplete = 'the live eventlog file ends mid-line: it was cut off while being written';
      else if (incomplete) incomplete = `collected after the bounded wait: ${incomplete}`;
      const { run: created } = await deps.runs.createFromUpload({
        projectId: project.id,
        externalRunId,
        clusterReport,
        status: incomplete ? 'INCOMPLETE' : span.failed ? (run.state.result_state ?? 'FAILED') : 'SUCCESS',
        incompleteReason: incomplete,
        files: downloaded,
      });
      return { runId: created.id };
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }

  /** The apply core's SLA guard looks at the run on the project's cluster (edits outside Setpoint, reverts). */
  async function guard(project: Project, run: Run, tasks: RunTask[]) {
    const { runtimeMinutes, failed, failure } = projectRunSpan(run, tasks);
    await deps.runFinished(project.id, {
      label: `run ${run.run_id}`,
      runtimeMinutes,
      failed,
      failure,
      // the run's times are the workspace's clock, not Setpoint's
      startedAt: null,
    });
  }

  async function collect(
    workspaceId: string,
    runId: string,
    attempt: number,
    projectId?: string,
  ): Promise<void> {
    const { client, workspace, s3 } = await deps.connect(workspaceId);
    const run = await client.getRun(runId);
    if (!terminalStates.has(run.state.life_cycle_state))
      throw new NotReadyYet(`run ${runId} is still ${run.state.life_cycle_state}`);
    if (projectId) {
      await collectForProject(client, s3, workspace, run, await deps.projects.get(projectId), attempt);
      return;
    }
    if (!run.job_id) return;
    const linked = await deps.projects.list({ workspaceId, limit: 500, offset: 0, sort: 'name' });
    for (const project of linked.items.filter((candidate) => candidate.jobId === run.job_id)) {
      await collectForProject(client, s3, workspace, run, project, attempt);
    }
    await deps.store.markSeen(workspaceId, run.job_id, run.start_time);
  }

  return { collect };
}

export type Collector = ReturnType<typeof createCollector>;
