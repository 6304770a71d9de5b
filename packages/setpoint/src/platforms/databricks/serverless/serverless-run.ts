import type { RunProfile } from '../../../eventlog/run-profile.js';
import { timelineProfile } from '../../../service/runs/timeline-profile.js';
import type { Run, RunTask } from '../api/schema.js';
import { isServerlessTask, type PerformanceTarget, performanceTargetOf } from './serverless-tasks.js';

/** What a job run's serverless tasks did, from the Jobs API run (runs/get). */
export interface ServerlessRunSpan {
  tasks: RunTask[];
  performanceTarget: PerformanceTarget;
  /** The first serverless task's start: when it was ready to run and asked for compute. */
  startMs: number;
  /** The last serverless task's end of execution. */
  endMs: number;
  /**
   * From the first task's start to the last one's end of execution, the start-up included: on serverless
   * compute the start-up is the performance mode's to decide (standard mode starts in minutes), so the
   * runtime an SLA is held to counts it.
   */
  runtimeMinutes: number;
  /** Seconds the tasks executed (the start-up excluded): what the compute billed. */
  executionSeconds: number;
  failed: boolean;
  failure: string | undefined;
}

/** The run's serverless tasks and their span; undefined when none of its tasks ran on serverless compute. */
export function serverlessRunSpan(run: Run): ServerlessRunSpan | undefined {
  const tasks = (run.tasks ?? []).filter(
    (task) => isServerlessTask(task) && !task.cluster_instance?.cluster_id,
  );
  const started = tasks.filter((task) => task.start_time);
  if (started.length === 0) return undefined;
  const endOf = (task: RunTask) =>
    task.execution_duration !== undefined && task.execution_duration > 0
      ? (task.start_time ?? 0) + (task.setup_duration ?? 0) + task.execution_duration
      : (task.end_time ?? task.start_time ?? 0);
  const startMs = Math.min(...started.map((task) => task.start_time ?? 0));
  const endMs = Math.max(...started.map(endOf));
  const failedTask = started.find(
    (task) => task.state?.result_state && task.state.result_state !== 'SUCCESS',
  );
  return {
    tasks: started,
    performanceTarget: performanceTargetOf(
      run.effective_performance_target ?? started[0]?.effective_performance_target,
    ),
    startMs,
    endMs,
    runtimeMinutes: Math.max(0, endMs - startMs) / 60_000,
    executionSeconds: started.reduce((sum, task) => sum + (task.execution_duration ?? 0) / 1000, 0),
    failed: failedTask !== undefined,
    failure: failedTask
      ? `task ${failedTask.task_key}: ${failedTask.state?.state_message || failedTask.state?.result_state}`
      : undefined,
  };
}

/**
 * A serverless run's profile: its runtime from the Jobs API's task timeline and nothing else, as serverless
 * compute has no cluster, no node timeline and no event log Setpoint can read (the core's timeline profile,
 * as for EMR Serverless).
 */
export function serverlessProfile(
  span: ServerlessRunSpan,
  workspace: { cloud: string | null; region: string | null },
): RunProfile {
  return timelineProfile({
    source: 'databricks-jobs-api://serverless',
    platform: {
      kind: 'databricks',
      cloud: (workspace.cloud ?? 'aws').toLowerCase(),
      region: workspace.region,
      clusterId: null,
      runtimeVersion: null,
      evidence: ['jobs/runs/get (serverless task timeline)'],
    },
    startMs: span.startMs,
    endMs: span.endMs,
    failed: span.failed,
    name: null,
    warning: `serverless compute (${span.performanceTarget}): no cluster, node timeline or event log; runtime from the Jobs API, cost from system.billing.usage`,
  });
}
