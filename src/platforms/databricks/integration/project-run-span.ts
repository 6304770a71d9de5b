import type { Run, RunTask } from '../schema.js';

/** What one project's job cluster did within a job run. */
export interface ProjectRunSpan {
  startTime: number;
  endTime: number;
  runtimeMinutes: number;
  failed: boolean;
  /** The task that failed, or the job run when its tasks carry no state. */
  failure: string | undefined;
}

/**
 * A multi-task job runs several job clusters one after another, so a project is judged on its own
 * tasks: from the first of them starting to the last ending. A job run without task times falls
 * back to the whole run.
 */
export function projectRunSpan(run: Run, tasks: RunTask[]): ProjectRunSpan {
  const starts = tasks.flatMap((task) => (task.start_time ? [task.start_time] : []));
  const ends = tasks.flatMap((task) => (task.end_time ? [task.end_time] : []));
  const startTime = starts.length ? Math.min(...starts) : run.start_time;
  const endTime = ends.length ? Math.max(...ends) : run.end_time;
  const withState = tasks.filter((task) => task.state?.result_state);
  const failedTask = withState.find((task) => task.state?.result_state !== 'SUCCESS');
  const failed = withState.length ? failedTask !== undefined : run.state.result_state !== 'SUCCESS';
  const failure = failedTask
    ? `task ${failedTask.task_key}: ${failedTask.state?.state_message || failedTask.state?.result_state}`
    : failed
      ? run.state.state_message || run.state.result_state || 'failed'
      : undefined;
  return { startTime, endTime, runtimeMinutes: (endTime - startTime) / 60_000, failed, failure };
}
