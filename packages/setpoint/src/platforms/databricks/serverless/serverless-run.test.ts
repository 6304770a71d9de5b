import { describe, expect, it } from 'vitest';
import { type Run, runSchema } from '../api/schema.js';
import { serverlessProfile, serverlessRunSpan } from './serverless-run.js';
import { isServerlessTask } from './serverless-tasks.js';

const minute = 60_000;
const t0 = Date.UTC(2026, 11, 6, 2);

function runOf(tasks: object[], extra: object = {}): Run {
  return runSchema.parse({
    run_id: 7,
    job_id: 3,
    start_time: t0,
    end_time: t0 + 60 * minute,
    state: { life_cycle_state: 'TERMINATED', result_state: 'SUCCESS' },
    tasks,
    ...extra,
  });
}

const serverlessTask = (
  key: string,
  start: number,
  setup: number,
  execution: number,
  result = 'SUCCESS',
) => ({
  run_id: start,
  task_key: key,
  environment_key: 'default',
  spark_python_task: { python_file: 'x.py' },
  start_time: start,
  setup_duration: setup,
  execution_duration: execution,
  end_time: start + setup + execution + 1000,
  state: { life_cycle_state: 'TERMINATED', result_state: result },
  effective_performance_target: 'STANDARD',
});

describe('serverless tasks', () => {
  it('are the tasks in an environment or running code without a cluster', () => {
    expect(isServerlessTask({ environment_key: 'default' })).toBe(true);
    expect(isServerlessTask({ notebook_task: { notebook_path: '/a' } })).toBe(true);
    expect(isServerlessTask({ new_cluster: {}, notebook_task: {} })).toBe(false);
    expect(isServerlessTask({ job_cluster_key: 'etl' })).toBe(false);
    expect(isServerlessTask({ existing_cluster_id: 'c' })).toBe(false);
    expect(isServerlessTask({ condition_task: { op: 'EQUAL_TO' } })).toBe(false);
    expect(isServerlessTask({ spark_jar_task: { main_class_name: 'A' } })).toBe(false);
  });
});

describe('serverlessRunSpan', () => {
  it('runs from the first start to the last end of execution, start-up included', () => {
    const run = runOf([
      serverlessTask('a', t0, 5 * minute, 10 * minute),
      serverlessTask('b', t0 + 16 * minute, 4 * minute, 20 * minute),
      { run_id: 9, task_key: 'classic', job_cluster_key: 'etl', start_time: t0, end_time: t0 + 90 * minute },
    ]);

    const span = serverlessRunSpan(run);

    expect(span?.tasks.map((task) => task.task_key)).toEqual(['a', 'b']);
    expect(span?.runtimeMinutes).toBe(40);
    expect(span?.executionSeconds).toBe(30 * 60);
    expect(span?.performanceTarget).toBe('STANDARD');
    expect(span?.failed).toBe(false);
  });

  it('reads the run-level mode first, the default when none is given, and the failed task', () => {
    const task = { ...serverlessTask('a', t0, 0, minute, 'FAILED'), effective_performance_target: undefined };
    const span = serverlessRunSpan(runOf([task], { effective_performance_target: 'PERFORMANCE_OPTIMIZED' }));
    const unspecified = serverlessRunSpan(runOf([task]));

    expect(span?.performanceTarget).toBe('PERFORMANCE_OPTIMIZED');
    expect(unspecified?.performanceTarget).toBe('PERFORMANCE_OPTIMIZED');
    expect(span?.failed).toBe(true);
    expect(span?.failure).toMatch(/^task a: /);
  });

  it('is undefined for a run with no serverless task', () => {
    expect(serverlessRunSpan(runOf([{ run_id: 9, task_key: 'c', job_cluster_key: 'etl' }]))).toBeUndefined();
  });

  it('gives a profile of the timeline alone, saying where it came from', () => {
    const span = serverlessRunSpan(runOf([serverlessTask('a', t0, 5 * minute, 10 * minute)]))!;

    const profile = serverlessProfile(span, { cloud: 'AWS', region: 'us-west-2' });

    expect(profile.application.startTime).toBe(t0);
    expect(profile.application.endTime).toBe(t0 + 15 * minute);
    expect(profile.executors.timeline).toEqual([]);
    expect(profile.source.path).toBe('databricks-jobs-api://serverless');
    // no cluster: none named, and no layout of a log read
    expect(profile.platform).toMatchObject({
      kind: 'databricks',
      cloud: 'aws',
      region: 'us-west-2',
      clusterId: null,
    });
    expect(profile.parse.events).toBe(0);
    expect(profile.parse.warnings[0]).toMatch(/serverless compute \(STANDARD\)/);
  });
});
