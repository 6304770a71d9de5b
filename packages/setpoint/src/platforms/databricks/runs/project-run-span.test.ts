import { describe, expect, it } from 'vitest';
import type { Run, RunTask } from '../api/schema.js';
import { projectRunSpan } from './project-run-span.js';

const minute = 60_000;

function task(key: string, start: number, end: number, result = 'SUCCESS'): RunTask {
  return {
    run_id: `${key}-run`,
    task_key: key,
    start_time: start * minute,
    end_time: end * minute,
    state: { life_cycle_state: 'TERMINATED', result_state: result },
    job_cluster_key: key,
  };
}

function jobRun(tasks: RunTask[], result = 'SUCCESS'): Run {
  return {
    run_id: '77',
    start_time: 0,
    end_time: 30 * minute,
    state: { life_cycle_state: 'TERMINATED', result_state: result },
    tasks,
  };
}

describe('a project span within a job run', () => {
  it('judges the first cluster of a pipeline on its own tasks, not the whole run', () => {
    const ingest = task('ingest', 1, 6);
    const run = jobRun([ingest, task('transform', 7, 30)]);

    expect(projectRunSpan(run, [ingest])).toMatchObject({
      startTime: minute,
      endTime: 6 * minute,
      runtimeMinutes: 5,
      failed: false,
      failure: undefined,
    });
  });

  it('spans every task a cluster ran and names the one that failed', () => {
    const tasks = [task('a', 2, 5), task('b', 5, 9, 'FAILED')];

    const span = projectRunSpan(jobRun(tasks, 'FAILED'), tasks);

    expect(span.runtimeMinutes).toBe(7);
    expect(span.failed).toBe(true);
    expect(span.failure).toBe('task b: FAILED');
  });

  it('does not blame a cluster for another cluster failing later in the run', () => {
    const ingest = task('ingest', 1, 6);

    expect(
      projectRunSpan(jobRun([ingest, task('transform', 7, 9, 'FAILED')], 'FAILED'), [ingest]).failed,
    ).toBe(false);
  });

  it('leaves cluster creation out of the runtime, as the Spark application does', () => {
    const ingest = { ...task('ingest', 1, 10), setup_duration: 4 * minute, execution_duration: 5 * minute };

    const span = projectRunSpan(jobRun([ingest]), [ingest]);

    expect(span.runtimeMinutes).toBe(5);
    expect(span.endTime).toBe(10 * minute);
  });

  it('falls back to the whole run when its tasks carry no times or states', () => {
    const bare: RunTask = { run_id: '1', task_key: 'only' };

    expect(projectRunSpan(jobRun([bare], 'FAILED'), [bare])).toMatchObject({
      runtimeMinutes: 30,
      failed: true,
      failure: 'FAILED',
    });
  });
});
