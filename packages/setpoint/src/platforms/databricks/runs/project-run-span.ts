import type { Run, RunTask } from '../api/schema.js';

/** What one project's job cluster did within a job run. */
export interface ProjectRunSpan {
  startTime: number;
  endTime: number;
  /**
   * From the first task's code starting to the last one's finishing: cluster creation is left out, as
   * it is from the Spark application's runtime that SLAs and predictions are stated in.
   */
  runtimeMinutes: number;
  failed: boolean;
  /** The task that failed, or the job run when its tasks carry no state. */
  failure: string | undefined;
}

/**
 * A multi-task job runs several job clusters one after another, so a project is judged on its own
 * tasks, not on the whole run. A job run without task times falls back to the whole run.
 */
export function projectRunSpan(run: Run, tasks: RunTask[]): ProjectRunSpan {
  const timed = tasks.filter((task) => task.start_time && task.end_time);
  const startTime = timed.length ? Math.min(...timed.map((task) => task.start_time ?? 0)) : run.start_time;
  const endTime = timed.length ? Math.max(...timed.map((task) => task.end_time ?? 0)) : run.end_time;
  const executing = timed.map((task) => {
    const start = (task.start_time ?? 0) + (task.setup_duration ?? 0);
    return { start, end: task.execution_duration ? start + task.execution_duration : (task.end_time ?? 0) };
  });
  const runtimeMs = executing.length
    ? Math.max(...executing.map((span) => span.end)) - Math.min(...executing.map((span) => span.start))
    : endTime - startTime;
  const withState = tasks.filter((task) => task.state?.result_state);
  const failedTask = withState.find((task) => task.state?.result_state !== 'SUCCESS');
  const failed = withState.length ? failedTask !== undefined : run.state.result_state !== 'SUCCESS';
  const failure = failedTask
    ? `task ${failedTask.task_key}: ${failedTask.state?.state_message || failedTask.state?.result_state}`
    : failed
      ? run.state.state_message || run.state.result_state || 'failed'
      : undefined;
  return { startTime, endTime, runtimeMinutes: runtimeMs / 60_000, failed, failure };
}
