import { createRandom, deriveSeed, type Random } from '@setpoint/foundation/random';
import { toSimClusterSpec } from '../physics/cluster-spec.js';
import { MinHeap } from '../physics/min-heap.js';
import { findNodeType } from '../physics/node-types.js';
import { simulateCluster } from '../physics/simulate-cluster.js';
import type { WorkloadRegistry } from '../workloads/workload-registry.js';
import type { AllPurposeClusters } from './all-purpose-clusters.js';
import { invalidParameter } from './api-errors.js';
import { busyByMinute } from './cluster-busy.js';
import { clusterTimes } from './cluster-timeline.js';
import type {
  ClusterRecord,
  EmulatorState,
  JobRecord,
  RunRecord,
  TaskOutcome,
  TaskRunRecord,
} from './emulator-state.js';
import type { FaultInjector } from './faults.js';
import { withInstancePool } from './instance-pools.js';
import { deliverClusterLogs, type LogSink } from './log-delivery.js';
import type { JobSettings, NewClusterSettings, TaskSettings, WebhookNotifications } from './schema.js';
import { effectivePerformanceTarget, isServerlessTask, runServerlessTask } from './serverless-tasks.js';
import type { SimClock } from './sim-clock.js';
import type { VirtualFs } from './virtual-fs.js';
import type { JobEventType, WebhookSender } from './webhooks.js';
import { workspaceUser } from './workspace-user.js';

const logDeliveryIntervalMs = 5 * 60_000;
const weekMs = 7 * 86_400_000;

interface Action {
  atMs: number;
  seq: number;
  perform: () => void;
}

export interface RunEngineDeps {
  state: EmulatorState;
  /** The workspace's all-purpose clusters, which tasks with `existing_cluster_id` run on. */
  allPurpose: AllPurposeClusters;
  fs: VirtualFs;
  clock: SimClock;
  faults: FaultInjector;
  webhooks: WebhookSender;
  workloads: WorkloadRegistry;
  seed: number;
  workspaceId: string;
  region: string;
  /** Receives logs of clusters whose `cluster_log_conf` is S3. */
  s3Logs?: LogSink | undefined;
  /**
   * How long (simulated ms) after a cluster terminates and its logs are delivered the engine keeps its
   * Spark detail (every task, stage and job of the simulation). Afterwards only what the APIs and system
   * tables still read stays: timeline, executors, node usage, cost and a per-minute summary of busy cores.
   * Unset keeps the detail for the emulator's lifetime.
   */
  clusterDetailRetentionMs?: number | undefined;
}

export interface StartRunRequest {
  job?: JobRecord;
  settings: JobSettings;
  runName: string;
  runType: RunRecord['runType'];
  jobParameters?: Record<string, string>;
  only?: string[];
  /** run-now's `performance_target`, over the job's own for this run. */
  performanceTarget?: string;
}

function topologicalOrder(tasks: TaskSettings[]): TaskSettings[] {
  const byKey = new Map(tasks.map((task) => [task.task_key, task]));
  const ordered: TaskSettings[] = [];
  const visiting = new Set<string>();
  const done = new Set<string>();
  const visit = (task: TaskSettings) => {
    if (done.has(task.task_key)) return;
    if (visiting.has(task.task_key))
      throw invalidParameter(`Task dependencies form a cycle at ${task.task_key}.`);
    visiting.add(task.task_key);
    for (const dependency of task.depends_on ?? []) {
      const upstream = byKey.get(dependency.task_key);
      if (upstream) visit(upstream);
    }
    visiting.delete(task.task_key);
    done.add(task.task_key);
    ordered.push(task);
  };
  for (const task of tasks) visit(task);
  return ordered;
}

/**
 * Turns run requests into simulated executions on the simulated clock: plans every task on its job
 * cluster, then performs the side effects (webhooks, log delivery) when simulated time reaches them.
 * Run and cluster states are projections of the plan at the current simulated time.
 */
export class RunEngine {
  private readonly actions = new MinHeap<Action>((action) => action.atMs + action.seq * 1e-9);
  private readonly ids: Random;
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly deps: RunEngineDeps) {
    this.ids = createRandom(deriveSeed(deps.seed, 'identifiers'));
  }

  get pendingActions(): number {
    return this.actions.size;
  }

  /** Performs every side effect due by now. Called before each request and by the timer. */
  catchUp(): void {
    const now = this.deps.clock.now();
    for (;;) {
      const next = this.actions.pop();
      if (!next) break;
      if (next.atMs > now) {
        this.actions.push(next);
        break;
      }
      next.perform();
    }
    this.arm();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(atMs: number, perform: () => void): void {
    this.seq += 1;
    this.actions.push({ atMs, seq: this.seq, perform });
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed) return;
    const next = this.actions.pop();
    if (!next) return;
    this.actions.push(next);
    const delay = this.deps.clock.realDelayUntil(next.atMs);
    if (delay === undefined) return;
    this.timer = setTimeout(() => this.catchUp(), Math.min(Math.ceil(delay) + 1, 2_147_000_000));
  }

  private newClusterId(nowMs: number): string {
    const iso = new Date(nowMs).toISOString();
    const stamp = `${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
    const words = ['reef', 'leap', 'bolt', 'dune', 'fern', 'gust', 'hale', 'iris', 'jade', 'knot'];
    return `${stamp}-${words[this.ids.int(words.length)]}${100 + this.ids.int(900)}`;
  }

  private newSparkContextId(): string {
    const high = BigInt(this.ids.int(2 ** 31)) | (1n << 30n);
    const low = BigInt(this.ids.int(2 ** 32));
    return ((high << 32n) | low).toString();
  }

  private createCluster(
    run: RunRecord,
    clusterKey: string,
    spec: NewClusterSettings,
    requestedAtMs: number,
    job: JobRecord | undefined,
  ): ClusterRecord {
    spec = withInstancePool(spec, this.deps.state);
    // the cluster keeps the node type it asked for; its workers may run on a flexible alternate
    const sim = toSimClusterSpec(this.launchedWorkers(spec));
    const clusterId = this.newClusterId(requestedAtMs);
    const clusterName = `job-${job?.jobId ?? 'submit'}-run-${run.runId}`;
    const ip = `10.${1 + this.ids.int(200)}.${this.ids.int(250)}.${2 + this.ids.int(250)}`;
    return {
      clusterId,
      clusterName,
      clusterKey,
      spec,
      sim,
      identity: {
        clusterId,
        clusterName,
        sparkContextId: this.newSparkContextId(),
        driverIp: ip,
        workspaceId: this.deps.workspaceId,
        region: sim.nodeType.cloud === 'Azure' ? 'westus2' : this.deps.region,
        ...(job ? { jobId: String(job.jobId) } : {}),
        runId: String(run.runId),
      },
      requestedAtMs,
      segments: [],
      simulation: simulateCluster(sim, [], { seed: 0, runIndex: 0 }),
      runId: run.runId,
      ...(job ? { jobId: job.jobId } : {}),
      jobName: run.runName,
      finalLogsDelivered: false,
    };
  }

  /**
   * The cluster as the cloud launches it: with no capacity for its worker node type (a `node-capacity`
   * fault) and alternates listed for it, on its first alternate the workspace has (Databricks' flexible
   * node types); otherwise as asked. The node timeline, billing and physics follow the type that ran.
   */
  private launchedWorkers(spec: NewClusterSettings): NewClusterSettings {
    const requested = spec.node_type_id;
    const alternates = (spec as { worker_node_type_flexibility?: { alternate_node_type_ids?: unknown } })
      .worker_node_type_flexibility?.alternate_node_type_ids;
    if (!requested || !Array.isArray(alternates) || alternates.length === 0) return spec;
    const alternate = alternates.find(
      (id): id is string => typeof id === 'string' && findNodeType(id) !== undefined,
    );
    if (!alternate || !this.deps.faults.take('node-capacity', requested)) return spec;
    return {
      ...spec,
      node_type_id: alternate,
      // a driver that was the worker type by default stays the requested type
      driver_node_type_id: spec.driver_node_type_id ?? requested,
    };
  }

  startRun(request: StartRunRequest): RunRecord {
    const { state, clock } = this.deps;
    const now = clock.now();
    const job = request.job;
    const allTasks = request.settings.tasks ?? [];
    if (allTasks.length === 0) throw invalidParameter('The job has no tasks to run.');
    const selected = request.only
      ? allTasks.filter((task) => request.only?.includes(task.task_key))
      : allTasks;
    if (selected.length === 0)
      throw invalidParameter(`None of the tasks in 'only' exist: ${request.only?.join(', ')}`);
    const runIndex = job ? job.runCount : 0;
    const run: RunRecord = {
      runId: state.allocateRunId(),
      ...(job ? { jobId: job.jobId } : {}),
      numberInJob: 0,
      runName: request.runName,
      runType: request.runType,
      trigger: 'ONE_TIME',
      creatorUserName: workspaceUser.userName,
      startMs: now,
      endMs: now,
      tasks: [],
      jobClusters: request.settings.job_clusters ?? [],
      jobParameters: request.jobParameters,
      settings: request.settings,
      performanceTarget: effectivePerformanceTarget(
        request.performanceTarget,
        (request.settings as { performance_target?: string }).performance_target,
      ),
      startNotified: false,
      endNotified: false,
    };
    run.numberInJob = run.runId;
    const weeksElapsed = job ? Math.max(0, now - job.createdTimeMs) / weekMs : 0;
    const clusters = new Map<string, ClusterRecord>();
    const finished = new Map<string, TaskRunRecord>();
    for (const task of topologicalOrder(selected)) {
      const taskRunId = state.allocateRunId();
      const upstream = (task.depends_on ?? [])
        .map((dependency) => finished.get(dependency.task_key))
        .filter((record): record is TaskRunRecord => record !== undefined);
      const readyMs = Math.max(now, ...upstream.map((record) => record.execEndMs + 1_000));
      const upstreamFailed = upstream.some((record) => record.outcome !== 'SUCCESS');
      const runIf = typeof task.run_if === 'string' ? task.run_if : 'ALL_SUCCESS';
      if (upstreamFailed && runIf === 'ALL_SUCCESS') {
        finished.set(task.task_key, {
          runId: taskRunId,
          taskKey: task.task_key,
          settings: task,
          startMs: readyMs,
          execStartMs: readyMs,
          execEndMs: readyMs,
          endMs: readyMs,
          outcome: 'UPSTREAM_FAILED',
          message: 'Upstream task failed.',
        });
        continue;
      }
      if (isServerlessTask(task)) {
        finished.set(
          task.task_key,
          this.serverlessTask(run, task, taskRunId, readyMs, job, runIndex, weeksElapsed),
        );
        continue;
      }
      if (task.existing_cluster_id) {
        finished.set(
          task.task_key,
          this.allPurposeTask(
            run,
            task,
            task.existing_cluster_id,
            taskRunId,
            readyMs,
            job,
            runIndex,
            weeksElapsed,
          ),
        );
        continue;
      }
      const clusterKey = task.job_cluster_key ?? `task:${task.task_key}`;
      const clusterSpec =
        task.new_cluster ??
        run.jobClusters.find((cluster) => cluster.job_cluster_key === task.job_cluster_key)?.new_cluster;
      if (!clusterSpec) {
        throw invalidParameter(
          `Task ${task.task_key} needs new_cluster, job_cluster_key or serverless compute (environment_key, or a notebook, Python or dbt task without a cluster).`,
        );
      }
      let cluster = clusters.get(clusterKey);
      if (!cluster) {
        cluster = this.createCluster(run, clusterKey, clusterSpec, readyMs, job);
        clusters.set(clusterKey, cluster);
      }
      cluster.segments.push({
        workload: this.deps.workloads.resolveTask(task),
        label: task.task_key,
        notBeforeMs: readyMs - cluster.requestedAtMs,
      });
      cluster.simulation = simulateCluster(cluster.sim, cluster.segments, {
        seed: deriveSeed(this.deps.seed, job?.jobId ?? run.runName, clusterKey),
        runIndex,
        weeksElapsed,
      });
      const segment = cluster.simulation.segments[cluster.simulation.segments.length - 1]!;
      const outcome: TaskOutcome =
        segment.outcome === 'SUCCESS'
          ? 'SUCCESS'
          : segment.outcome === 'FAILED'
            ? 'FAILED'
            : 'UPSTREAM_FAILED';
      finished.set(task.task_key, {
        runId: taskRunId,
        taskKey: task.task_key,
        settings: task,
        clusterId: cluster.clusterId,
        startMs: readyMs,
        execStartMs: cluster.requestedAtMs + segment.startMs,
        execEndMs: cluster.requestedAtMs + segment.endMs,
        endMs: cluster.requestedAtMs + segment.endMs + 1_000,
        outcome,
        message:
          outcome === 'SUCCESS'
            ? ''
            : outcome === 'FAILED'
              ? (segment.failureMessage ?? 'Workload failed, see run output for details.')
              : 'Upstream task failed.',
      });
    }
    // The task that finishes last on a cluster waits for its termination (cleanup_duration).
    for (const cluster of clusters.values()) {
      const onCluster = [...finished.values()].filter((task) => task.clusterId === cluster.clusterId);
      const last = onCluster.reduce((latest, task) => (task.execEndMs > latest.execEndMs ? task : latest));
      last.endMs = Math.max(last.endMs, clusterTimes(cluster).terminatingMs);
    }
    run.tasks = [...finished.values()];
    run.endMs = Math.max(...run.tasks.map((task) => task.endMs));
    this.applyDurationLimits(run, [...clusters.values()]);
    if (job) job.runCount += 1;
    state.runs.set(run.runId, run);
    for (const task of run.tasks) state.taskRuns.set(task.runId, { run, task });
    for (const cluster of clusters.values()) {
      state.clusters.set(cluster.clusterId, cluster);
      this.scheduleLogDelivery(cluster);
      this.scheduleDetailRetirement(cluster);
    }
    this.scheduleNotifications(run);
    this.catchUp();
    return run;
  }

  /** A task on an all-purpose cluster: started if it is terminated, then the work on its shape. */
  private allPurposeTask(
    run: RunRecord,
    task: TaskSettings,
    clusterId: string,
    taskRunId: number,
    readyMs: number,
    job: JobRecord | undefined,
    runIndex: number,
    weeksElapsed: number,
  ): TaskRunRecord {
    const ran = this.deps.allPurpose.runTask(
      clusterId,
      { workload: this.deps.workloads.resolveTask(task), label: task.task_key },
      readyMs,
      {
        seed: deriveSeed(this.deps.seed, job?.jobId ?? run.runName, `existing:${clusterId}`),
        runIndex,
        weeksElapsed,
      },
    );
    const succeeded = ran.result.outcome === 'SUCCESS';
    return {
      runId: taskRunId,
      taskKey: task.task_key,
      settings: task,
      clusterId,
      startMs: readyMs,
      execStartMs: ran.execStartMs,
      execEndMs: ran.execEndMs,
      endMs: ran.execEndMs + 1_000,
      outcome: succeeded ? 'SUCCESS' : 'FAILED',
      message: succeeded ? '' : (ran.result.failureMessage ?? 'Workload failed, see run output for details.'),
      allPurpose: { sparkContextId: ran.sparkContextId },
    };
  }

  /** A task on serverless compute: no cluster, the mode's start-up, then the work; billed in DBUs by the run. */
  private serverlessTask(
    run: RunRecord,
    task: TaskSettings,
    taskRunId: number,
    readyMs: number,
    job: JobRecord | undefined,
    runIndex: number,
    weeksElapsed: number,
  ): TaskRunRecord {
    const execution = runServerlessTask(this.deps.workloads.resolveTask(task), run.performanceTarget, {
      seed: this.deps.seed,
      jobKey: job?.jobId ?? run.runName,
      taskKey: task.task_key,
      runIndex,
      weeksElapsed,
    });
    const execStartMs = readyMs + execution.startupMs;
    const execEndMs = execStartMs + execution.executionMs;
    return {
      runId: taskRunId,
      taskKey: task.task_key,
      settings: task,
      startMs: readyMs,
      execStartMs,
      execEndMs,
      endMs: execEndMs + 1_000,
      outcome: execution.outcome,
      message:
        execution.outcome === 'SUCCESS'
          ? ''
          : (execution.failureMessage ?? 'Workload failed, see run output for details.'),
      serverless: {
        performanceTarget: execution.performanceTarget,
        dbus: execution.dbus,
        peakWorkers: execution.peakWorkers,
        nodeSeconds: execution.nodeSeconds,
      },
    };
  }

  cancelRun(run: RunRecord): void {
    const now = this.deps.clock.now();
    if (now >= run.endMs || run.cancelledAtMs !== undefined || run.timedOutAtMs !== undefined) return;
    run.cancelledAtMs = now;
    const clusters = [...this.deps.state.clusters.values()].filter((cluster) => cluster.runId === run.runId);
    for (const cluster of this.cutRun(run, clusters, now, 'CANCELED', 'Run cancelled.')) {
      this.scheduleFinalDelivery(cluster);
    }
    this.schedule(run.endMs, () => this.notifyEnd(run));
    this.catchUp();
  }

  /** Stops every unfinished task at `atMs`; returns the clusters that now terminate early. */
  private cutRun(
    run: RunRecord,
    clusters: readonly ClusterRecord[],
    atMs: number,
    outcome: 'CANCELED' | 'TIMEDOUT',
    message: string,
  ): ClusterRecord[] {
    for (const task of run.tasks) {
      if (atMs >= task.execEndMs) continue;
      if (atMs < task.startMs) task.startMs = atMs;
      if (atMs < task.execStartMs) task.execStartMs = atMs;
      task.execEndMs = atMs;
      task.endMs = atMs + 2_000;
      task.outcome = outcome;
      task.message = message;
    }
    const cut = clusters.filter((cluster) => atMs < clusterTimes(cluster).terminatingMs);
    for (const cluster of cut) cluster.cutAtMs = atMs;
    run.endMs = Math.max(...run.tasks.map((task) => task.endMs));
    return cut;
  }

  /** `timeout_seconds` stops the run; `health` RUN_DURATION_SECONDS rules raise a warning webhook first. */
  private applyDurationLimits(run: RunRecord, clusters: readonly ClusterRecord[]): void {
    const settings = run.settings;
    const warning = settings.health?.rules?.find(
      (rule) => rule.metric === 'RUN_DURATION_SECONDS' && rule.op === 'GREATER_THAN',
    );
    if (warning && run.endMs - run.startMs > warning.value * 1000) {
      const atMs = run.startMs + warning.value * 1000;
      this.schedule(atMs, () =>
        this.deps.webhooks.send(
          'jobs.on_duration_warning_threshold_exceeded',
          this.destinations(settings.webhook_notifications, 'jobs.on_duration_warning_threshold_exceeded'),
          this.subject(run),
          atMs,
        ),
      );
    }
    const timeoutSeconds = settings.timeout_seconds ?? 0;
    if (timeoutSeconds > 0 && run.endMs - run.startMs > timeoutSeconds * 1000) {
      run.timedOutAtMs = run.startMs + timeoutSeconds * 1000;
      this.cutRun(
        run,
        clusters,
        run.timedOutAtMs,
        'TIMEDOUT',
        `Run timed out after ${timeoutSeconds} seconds.`,
      );
    }
  }

  private destinations(notifications: WebhookNotifications | undefined, event: JobEventType): string[] {
    const key = event.slice('jobs.'.length) as keyof WebhookNotifications;
    const entries = notifications?.[key];
    return Array.isArray(entries) ? entries.map((entry: { id: string }) => entry.id) : [];
  }

  private scheduleNotifications(run: RunRecord): void {
    const { webhooks } = this.deps;
    const notifications = run.settings.webhook_notifications;
    this.schedule(run.startMs, () => {
      run.startNotified = true;
      webhooks.send(
        'jobs.on_start',
        this.destinations(notifications, 'jobs.on_start'),
        this.subject(run),
        run.startMs,
      );
    });
    for (const task of run.tasks) {
      const taskNotifications = task.settings.webhook_notifications;
      if (!taskNotifications || task.outcome === 'UPSTREAM_FAILED') continue;
      this.schedule(task.execStartMs, () =>
        webhooks.send(
          'jobs.on_start',
          this.destinations(taskNotifications, 'jobs.on_start'),
          { ...this.subject(run), runId: task.runId, parentRunId: run.runId, taskKey: task.taskKey },
          task.execStartMs,
        ),
      );
      this.schedule(task.endMs, () => {
        if (this.deps.clock.now() < task.endMs) return;
        const event: JobEventType = task.outcome === 'SUCCESS' ? 'jobs.on_success' : 'jobs.on_failure';
        webhooks.send(
          event,
          this.destinations(taskNotifications, event),
          { ...this.subject(run), runId: task.runId, parentRunId: run.runId, taskKey: task.taskKey },
          task.endMs,
        );
      });
    }
    this.schedule(run.endMs, () => this.notifyEnd(run));
  }

  private subject(run: RunRecord): { runId: number; jobId?: number; jobName: string } {
    return {
      runId: run.runId,
      ...(run.jobId === undefined ? {} : { jobId: run.jobId }),
      jobName: run.runName,
    };
  }

  private notifyEnd(run: RunRecord): void {
    if (run.endNotified || this.deps.clock.now() < run.endMs) return;
    run.endNotified = true;
    const succeeded = run.tasks.every((task) => task.outcome === 'SUCCESS');
    const settings = run.settings.notification_settings;
    if (run.cancelledAtMs !== undefined && settings?.no_alert_for_canceled_runs) return;
    const event: JobEventType = succeeded ? 'jobs.on_success' : 'jobs.on_failure';
    this.deps.webhooks.send(
      event,
      this.destinations(run.settings.webhook_notifications, event),
      this.subject(run),
      run.endMs,
    );
  }

  private scheduleLogDelivery(cluster: ClusterRecord): void {
    if (!cluster.spec.cluster_log_conf) return;
    const times = clusterTimes(cluster);
    for (
      let at = times.readyMs + logDeliveryIntervalMs;
      at < times.terminatedMs;
      at += logDeliveryIntervalMs
    ) {
      this.schedule(at, () => {
        if (cluster.finalLogsDelivered) return;
        const cut = cluster.cutAtMs;
        if (cut !== undefined && at > cut) return;
        deliverClusterLogs({ fs: this.deps.fs, s3: this.deps.s3Logs }, cluster, at, at, {
          truncateEventLog: false,
          missingEventLog: false,
        });
      });
    }
    this.scheduleFinalDelivery(cluster);
  }

  /** Cancelling only ever brings termination forward, so the first date stays late enough. */
  private scheduleDetailRetirement(cluster: ClusterRecord, atMs?: number): void {
    const retentionMs = this.deps.clusterDetailRetentionMs;
    if (retentionMs === undefined) return;
    this.schedule(atMs ?? clusterTimes(cluster).terminatedMs + retentionMs, () => {
      // a log delivery still to come renders the event log from the detail: ask again later
      if (cluster.spec.cluster_log_conf !== undefined && !cluster.finalLogsDelivered) {
        this.scheduleDetailRetirement(cluster, this.deps.clock.now() + Math.max(retentionMs, 60_000));
        return;
      }
      retireClusterDetail(cluster);
    });
  }

  /** Databricks guarantees delivery of everything up to termination, a few minutes after it. */
  private scheduleFinalDelivery(cluster: ClusterRecord): void {
    if (!cluster.spec.cluster_log_conf) return;
    const delayRandom = createRandom(deriveSeed(this.deps.seed, cluster.clusterId, 'log-delay'));
    const delayFault = this.deps.faults.take('log-delay', cluster.jobName);
    const delayMs =
      60_000 + Math.round(delayRandom.next() * 120_000) + (delayFault?.extraDelaySeconds ?? 0) * 1000;
    const deliverAt = clusterTimes(cluster).terminatedMs + delayMs;
    this.schedule(deliverAt, () => {
      if (cluster.finalLogsDelivered || clusterTimes(cluster).terminatedMs + delayMs !== deliverAt) return;
      cluster.finalLogsDelivered = true;
      const faults = {
        truncateEventLog: this.deps.faults.take('truncate-eventlog', cluster.jobName) !== undefined,
        missingEventLog: this.deps.faults.take('missing-eventlog', cluster.jobName) !== undefined,
      };
      deliverClusterLogs(
        { fs: this.deps.fs, s3: this.deps.s3Logs },
        cluster,
        Number.POSITIVE_INFINITY,
        deliverAt,
        faults,
      );
      // Everything is on the file system now; keep memory flat over thousands of runs.
      cluster.eventLog = undefined;
    });
  }
}

/**
 * Drops a terminated cluster's Spark detail, which only the event log (already delivered) and the
 * system tables' busy-core figures read, keeping the per-minute summary of the latter.
 */
export function retireClusterDetail(cluster: ClusterRecord): void {
  if (cluster.retiredBusyByMinute) return;
  cluster.retiredBusyByMinute = busyByMinute(cluster);
  cluster.simulation = { ...cluster.simulation, tasks: [], stages: [], jobs: [] };
  cluster.eventLog = undefined;
}
