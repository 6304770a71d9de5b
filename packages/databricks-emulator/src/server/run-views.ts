import { invalidParameter } from './api-errors.js';
import type { EmulatorState, RunRecord, TaskRunRecord } from './emulator-state.js';
import { clusterWithDefaults } from './job-settings.js';

type Json = Record<string, unknown>;

interface StateView {
  lifeCycle: string;
  result?: string;
  message: string;
  userCancelled: boolean;
}

function taskState(task: TaskRunRecord, now: number): StateView {
  const cancelled = task.outcome === 'CANCELED' || task.outcome === 'TIMEDOUT';
  if (task.outcome === 'UPSTREAM_FAILED' && now >= task.endMs) {
    return { lifeCycle: 'SKIPPED', result: 'UPSTREAM_FAILED', message: task.message, userCancelled: false };
  }
  if (now < task.startMs)
    return { lifeCycle: 'PENDING', message: 'Waiting for upstream tasks', userCancelled: false };
  if (now < task.execStartMs)
    return { lifeCycle: 'PENDING', message: 'Waiting for cluster', userCancelled: false };
  if (now < task.execEndMs) return { lifeCycle: 'RUNNING', message: 'In run', userCancelled: false };
  if (now < task.endMs)
    return { lifeCycle: 'TERMINATING', message: 'Terminating the cluster', userCancelled: cancelled };
  return { lifeCycle: 'TERMINATED', result: task.outcome, message: task.message, userCancelled: cancelled };
}

function statusOf(view: StateView): Json {
  const state =
    view.lifeCycle === 'SKIPPED' || view.lifeCycle === 'INTERNAL_ERROR' ? 'TERMINATED' : view.lifeCycle;
  if (state !== 'TERMINATED') return { state };
  const code =
    view.result === 'SUCCESS'
      ? 'SUCCESS'
      : view.result === 'CANCELED'
        ? 'USER_CANCELED'
        : view.result === 'TIMEDOUT'
          ? 'CANCELED'
          : view.result === 'UPSTREAM_FAILED'
            ? 'SKIPPED'
            : 'RUN_EXECUTION_ERROR';
  return {
    state,
    termination_details: {
      code,
      type: view.result === 'SUCCESS' || view.result === 'CANCELED' ? 'SUCCESS' : 'CLIENT_ERROR',
      message: view.message,
    },
  };
}

function stateJson(view: StateView): Json {
  return {
    life_cycle_state: view.lifeCycle,
    ...(view.result === undefined ? {} : { result_state: view.result }),
    state_message: view.message,
    user_cancelled_or_timedout: view.userCancelled,
  };
}

function runState(run: RunRecord, now: number): StateView {
  const views = run.tasks.map((task) => taskState(task, now));
  if (now >= run.endMs) {
    const failed = run.tasks.find((task) => task.outcome === 'FAILED');
    if (run.cancelledAtMs !== undefined) {
      return { lifeCycle: 'TERMINATED', result: 'CANCELED', message: 'Run cancelled.', userCancelled: true };
    }
    const timedOut = run.tasks.find((task) => task.outcome === 'TIMEDOUT');
    if (run.timedOutAtMs !== undefined && timedOut) {
      return { lifeCycle: 'TERMINATED', result: 'TIMEDOUT', message: timedOut.message, userCancelled: true };
    }
    if (failed) {
      // What the real service reports when a task fails: INTERNAL_ERROR with a task-level message.
      return {
        lifeCycle: 'INTERNAL_ERROR',
        result: 'FAILED',
        message: `Task ${failed.taskKey} failed with message: Workload failed, see run output for details.`,
        userCancelled: false,
      };
    }
    return { lifeCycle: 'TERMINATED', result: 'SUCCESS', message: '', userCancelled: false };
  }
  if (
    views.some(
      (view) =>
        view.lifeCycle === 'RUNNING' || view.lifeCycle === 'TERMINATED' || view.lifeCycle === 'SKIPPED',
    )
  ) {
    const allDone = views.every(
      (view) =>
        view.lifeCycle === 'TERMINATING' || view.lifeCycle === 'TERMINATED' || view.lifeCycle === 'SKIPPED',
    );
    return {
      lifeCycle: allDone ? 'TERMINATING' : 'RUNNING',
      message: allDone ? '' : 'In run',
      userCancelled: false,
    };
  }
  if (views.some((view) => view.lifeCycle === 'TERMINATING')) {
    return { lifeCycle: 'TERMINATING', message: '', userCancelled: false };
  }
  return { lifeCycle: 'PENDING', message: 'Waiting for cluster', userCancelled: false };
}

export function isRunActive(run: RunRecord, now: number): boolean {
  return now < run.endMs;
}

function taskJson(
  run: RunRecord,
  task: TaskRunRecord,
  now: number,
  state: EmulatorState,
  host: string,
): Json {
  const view = taskState(task, now);
  const started = now >= task.startMs && task.outcome !== 'UPSTREAM_FAILED';
  const terminated = view.lifeCycle === 'TERMINATED' || view.lifeCycle === 'SKIPPED';
  const cluster = task.clusterId ? state.clusters.get(task.clusterId) : undefined;
  const compute: Json = {};
  if (task.settings.new_cluster) compute.new_cluster = clusterWithDefaults(task.settings.new_cluster);
  if (task.settings.job_cluster_key) compute.job_cluster_key = task.settings.job_cluster_key;
  if (task.settings.existing_cluster_id) compute.existing_cluster_id = task.settings.existing_cluster_id;
  const json: Json = {
    run_id: task.runId,
    task_key: task.taskKey,
    ...(task.settings.depends_on ? { depends_on: task.settings.depends_on } : {}),
    ...compute,
    run_if: task.settings.run_if ?? 'ALL_SUCCESS',
    attempt_number: 0,
    start_time: started ? task.startMs : 0,
    end_time: terminated ? task.endMs : 0,
    setup_duration: terminated ? task.execStartMs - task.startMs : 0,
    execution_duration: terminated ? task.execEndMs - task.execStartMs : 0,
    cleanup_duration: terminated ? task.endMs - task.execEndMs : 0,
    run_duration: terminated ? task.endMs - task.startMs : 0,
    queue_duration: 0,
    state: stateJson(view),
    status: statusOf(view),
    run_page_url: runPageUrl(host, run, task.runId),
  };
  for (const field of [
    'spark_python_task',
    'notebook_task',
    'spark_jar_task',
    'python_wheel_task',
    'sql_task',
    'environment_key',
    'libraries',
    'description',
  ]) {
    const value = (task.settings as Json)[field];
    if (value !== undefined) json[field] = value;
  }
  if (task.serverless) json.effective_performance_target = task.serverless.performanceTarget;
  if (task.allPurpose && task.clusterId && now >= task.startMs) {
    json.cluster_instance = {
      cluster_id: task.clusterId,
      ...(now >= task.execStartMs ? { spark_context_id: task.allPurpose.sparkContextId } : {}),
    };
  } else if (cluster && now >= cluster.requestedAtMs) {
    json.cluster_instance = {
      cluster_id: cluster.clusterId,
      ...(now >= task.execStartMs ? { spark_context_id: cluster.identity.sparkContextId } : {}),
    };
  }
  return json;
}

function runPageUrl(host: string, run: RunRecord, runId: number): string {
  return run.jobId === undefined
    ? `${host}/?o=1234567890123456#job/run/${runId}`
    : `${host}/?o=1234567890123456#job/${run.jobId}/run/${runId}`;
}

export interface RunViewOptions {
  includeTasks: boolean;
  /** API 2.2 caps tasks at 100 per response and pages with page_token. */
  taskPage?: { offset: number; size: number };
}

export function runJson(
  run: RunRecord,
  now: number,
  state: EmulatorState,
  host: string,
  options: RunViewOptions,
): Json {
  const view = runState(run, now);
  const terminated = now >= run.endMs;
  const firstExec = Math.min(...run.tasks.map((task) => task.execStartMs));
  const json: Json = {
    job_id: run.jobId,
    run_id: run.runId,
    number_in_job: run.numberInJob,
    original_attempt_run_id: run.runId,
    attempt_number: 0,
    run_name: run.runName,
    run_type: run.runType,
    trigger: run.trigger,
    creator_user_name: run.creatorUserName,
    start_time: run.startMs,
    end_time: terminated ? run.endMs : 0,
    setup_duration: 0,
    execution_duration: 0,
    cleanup_duration: 0,
    run_duration: terminated ? run.endMs - run.startMs : 0,
    queue_duration: 0,
    state: stateJson(view),
    status: statusOf(view),
    run_page_url: runPageUrl(host, run, run.runId),
    format: 'MULTI_TASK',
    job_clusters: run.jobClusters.map((cluster) => ({
      ...cluster,
      new_cluster: clusterWithDefaults(cluster.new_cluster),
    })),
    ...(run.jobParameters
      ? { job_parameters: Object.entries(run.jobParameters).map(([name, value]) => ({ name, value })) }
      : {}),
  };
  if (run.jobId === undefined) delete json.job_id;
  if (run.tasks.some((task) => task.serverless)) json.effective_performance_target = run.performanceTarget;
  const only = run.tasks.length === 1 ? run.tasks[0]! : undefined;
  if (only && terminated) {
    // Single-task runs report the phases at run level too; multi-task runs leave them 0.
    json.setup_duration = only.execStartMs - only.startMs;
    json.execution_duration = only.execEndMs - only.execStartMs;
    json.cleanup_duration = only.endMs - only.execEndMs;
  }
  if (run.tasks.length === 1 && run.tasks[0]!.settings.new_cluster && now >= firstExec) {
    const task = run.tasks[0]!;
    const cluster = task.clusterId ? state.clusters.get(task.clusterId) : undefined;
    if (cluster) {
      json.cluster_instance = {
        cluster_id: cluster.clusterId,
        spark_context_id: cluster.identity.sparkContextId,
      };
    }
  }
  if (options.includeTasks) {
    const page = options.taskPage;
    const tasks = page ? run.tasks.slice(page.offset, page.offset + page.size) : run.tasks;
    json.tasks = tasks.map((task) => taskJson(run, task, now, state, host));
    if (page && page.offset + page.size < run.tasks.length) {
      json.next_page_token = encodePageToken(page.offset + page.size);
      json.has_more = true;
    }
    if (page && page.offset > 0) json.job_clusters = [];
  }
  return json;
}

export function encodePageToken(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString('base64url');
}

export function decodePageToken(token: string | undefined): number {
  if (!token) return 0;
  const decoded = Buffer.from(token, 'base64url').toString('utf8');
  const match = /^offset:(\d+)$/.exec(decoded);
  if (!match) throw invalidParameter(`Invalid page token: ${token}`);
  return Number(match[1]);
}
