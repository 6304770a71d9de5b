import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { freshEmulators } from './support.js';

const fresh = freshEmulators();

const newCluster = {
  spark_version: '15.4.x-scala2.12',
  node_type_id: 'm5.xlarge',
  num_workers: 2,
  aws_attributes: { availability: 'ON_DEMAND' },
  cluster_log_conf: { dbfs: { destination: 'dbfs:/logs' } },
};

function twoTaskJob(name = 'merge me') {
  return {
    name,
    job_clusters: [
      { job_cluster_key: 'a', new_cluster: newCluster },
      { job_cluster_key: 'b', new_cluster: { ...newCluster, num_workers: 3 } },
    ],
    tasks: [
      {
        task_key: 'first',
        job_cluster_key: 'a',
        spark_python_task: { python_file: 'dbfs:/jobbank/pipeline-ingest.py' },
      },
      {
        task_key: 'second',
        depends_on: [{ task_key: 'first' }],
        job_cluster_key: 'b',
        spark_python_task: { python_file: 'dbfs:/jobbank/pipeline-transform.py' },
        max_retries: 2,
      },
    ],
  };
}

describe('authentication and errors', () => {
  it('answers a missing credential with 401 and a wrong token as Databricks does: 403 "Invalid access token."', async () => {
    const api = await fresh();
    const missing = await api.emulator.app.inject({ method: 'GET', url: '/api/2.2/jobs/list' });
    expect(missing.statusCode).toBe(401);
    expect(JSON.parse(missing.body)).toEqual({ error_code: 'UNAUTHENTICATED', message: expect.any(String) });
    const wrong = await api.emulator.app.inject({
      method: 'GET',
      url: '/api/2.0/preview/scim/v2/Me',
      headers: { authorization: 'Bearer dapi0123456789abcdef' },
    });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.headers['x-databricks-reason-phrase']).toBe('Invalid access token.');
    // byte for byte what a workspace sends (52 bytes, a numeric error_code)
    expect(wrong.body).toBe('{"error_code":403,"message":"Invalid access token."}');
  });

  it('answers unknown jobs with 404 RESOURCE_DOES_NOT_EXIST, bad input with 400, unknown paths with ENDPOINT_NOT_FOUND', async () => {
    const api = await fresh();
    const missing = await api.call('GET', '/api/2.1/jobs/get?job_id=424242');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({
      error_code: 'RESOURCE_DOES_NOT_EXIST',
      message: 'Job 424242 does not exist.',
    });
    const invalid = await api.call('POST', '/api/2.2/jobs/create', {
      tasks: [{ task_key: 'x', job_cluster_key: 'nope' }],
    });
    expect(invalid.status).toBe(400);
    expect(invalid.json.error_code).toBe('INVALID_PARAMETER_VALUE');
    const notAnEndpoint = await api.call('GET', '/api/2.2/jobs/nothing');
    expect(notAnEndpoint.status).toBe(404);
    expect(notAnEndpoint.json.error_code).toBe('ENDPOINT_NOT_FOUND');
  });

  it('reads a JSON body sent as a form, as `curl --data` sends it, and still refuses one that is not JSON', async () => {
    const api = await fresh();
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const started = await api.call('POST', '/api/2.1/jobs/run-now', '{"job_id":1004}', form);
    expect(started.status).toBe(200);
    expect(started.json.run_id).toEqual(expect.any(Number));
    const run = await api.call('GET', `/api/2.1/jobs/runs/get?run_id=${String(started.json.run_id)}`);
    expect(run.json.job_id).toBe(1004);
    const notJson = await api.call('POST', '/api/2.1/jobs/run-now', 'job_id=1004', form);
    expect(notJson.status).toBe(400);
    expect(notJson.json.error_code).toBe('MALFORMED_REQUEST');
  });

  it('takes numbers written as strings, as proto3 JSON allows, and stores them as numbers', async () => {
    const api = await fresh({ preloadJobs: false });
    const stringly = {
      ...newCluster,
      num_workers: '3',
      aws_attributes: { availability: 'SPOT_WITH_FALLBACK', first_on_demand: '1', ebs_volume_count: '2' },
    };
    const created = await api.call('POST', '/api/2.2/jobs/create', {
      name: 'from airflow',
      timeout_seconds: '3600',
      tasks: [
        {
          task_key: 't',
          new_cluster: stringly,
          max_retries: '1',
          spark_python_task: { python_file: 'x.py' },
        },
      ],
    });
    expect(created.status).toBe(200);

    const job = await api.call('GET', `/api/2.2/jobs/get?job_id=${created.json.job_id}`);
    const settings = job.json.settings as {
      timeout_seconds: unknown;
      tasks: Array<{ new_cluster: unknown }>;
    };
    expect(settings.timeout_seconds).toBe(3600);
    expect(settings.tasks[0]?.new_cluster).toMatchObject({
      num_workers: 3,
      aws_attributes: { first_on_demand: 1, ebs_volume_count: 2 },
    });
    const notANumber = await api.call('POST', '/api/2.2/jobs/create', {
      tasks: [{ task_key: 't', new_cluster: { ...newCluster, num_workers: 'three' } }],
    });
    expect(notANumber.status).toBe(400);
  });

  it('serves the same jobs handlers under 2.0, 2.1 and 2.2', async () => {
    const api = await fresh();
    for (const version of ['2.0', '2.1', '2.2']) {
      const response = await api.call('GET', `/api/${version}/jobs/get?job_id=1001`);
      expect(response.status).toBe(200);
      expect(response.json.job_id).toBe(1001);
    }
  });
});

describe('jobs/update, reset and read-side defaults', () => {
  it('merges tasks and job_clusters by key, replacing whole entries and keeping the others', async () => {
    const api = await fresh({ preloadJobs: false });
    const created = await api.call('POST', '/api/2.2/jobs/create', twoTaskJob());
    const jobId = created.json.job_id as number;
    const update = await api.call('POST', '/api/2.2/jobs/update', {
      job_id: jobId,
      new_settings: {
        job_clusters: [
          {
            job_cluster_key: 'b',
            new_cluster: { ...newCluster, node_type_id: 'r5d.xlarge', num_workers: 6 },
          },
        ],
        tasks: [
          {
            task_key: 'second',
            depends_on: [{ task_key: 'first' }],
            job_cluster_key: 'b',
            notebook_task: { notebook_path: '/x' },
          },
        ],
        timeout_seconds: 600,
      },
    });
    expect(update.status).toBe(200);
    const job = await api.call('GET', `/api/2.2/jobs/get?job_id=${jobId}`);
    const settings = job.json.settings as Record<string, unknown>;
    const clusters = settings.job_clusters as Array<{
      job_cluster_key: string;
      new_cluster: Record<string, unknown>;
    }>;
    expect(clusters.map((cluster) => cluster.job_cluster_key)).toEqual(['a', 'b']);
    expect(clusters[1]!.new_cluster.node_type_id).toBe('r5d.xlarge');
    expect(clusters[0]!.new_cluster.node_type_id).toBe('m5.xlarge');
    const tasks = settings.tasks as Array<Record<string, unknown>>;
    const second = tasks.find((task) => task.task_key === 'second')!;
    // Entries are replaced whole: the fields the update did not send are gone.
    expect(second.max_retries).toBeUndefined();
    expect(second.spark_python_task).toBeUndefined();
    expect(second.notebook_task).toEqual({ notebook_path: '/x' });
    expect(tasks.find((task) => task.task_key === 'first')!.spark_python_task).toBeDefined();
    expect(settings.timeout_seconds).toBe(600);
    expect(settings.name).toBe('merge me');
  });

  it('removes top-level fields and keyed entries with fields_to_remove, and rejects unknown ones', async () => {
    const api = await fresh({ preloadJobs: false });
    const jobId = (await api.call('POST', '/api/2.2/jobs/create', { ...twoTaskJob(), description: 'old' }))
      .json.job_id;
    const removed = await api.call('POST', '/api/2.2/jobs/update', {
      job_id: jobId,
      new_settings: { tasks: [{ task_key: 'second', job_cluster_key: 'a' }] },
      fields_to_remove: ['description', 'job_clusters/b'],
    });
    expect(removed.status).toBe(200);
    const settings = (await api.call('GET', `/api/2.2/jobs/get?job_id=${jobId}`)).json.settings as Record<
      string,
      unknown
    >;
    expect(settings.description).toBeUndefined();
    expect((settings.job_clusters as unknown[]).length).toBe(1);
    const bad = await api.call('POST', '/api/2.2/jobs/update', {
      job_id: jobId,
      fields_to_remove: ['tasks/nope'],
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error_code).toBe('INVALID_PARAMETER_VALUE');
  });

  it('rejects an update that leaves a task pointing at a removed job cluster', async () => {
    const api = await fresh({ preloadJobs: false });
    const jobId = (await api.call('POST', '/api/2.2/jobs/create', twoTaskJob())).json.job_id;
    const response = await api.call('POST', '/api/2.2/jobs/update', {
      job_id: jobId,
      fields_to_remove: ['job_clusters/b'],
    });
    expect(response.status).toBe(400);
  });

  it('reset replaces all settings but keeps run_as', async () => {
    const api = await fresh({ preloadJobs: false });
    const jobId = (
      await api.call('POST', '/api/2.2/jobs/create', { ...twoTaskJob(), run_as: { user_name: 'a@b.c' } })
    ).json.job_id;
    await api.call('POST', '/api/2.2/jobs/reset', { job_id: jobId, new_settings: { name: 'replaced' } });
    const settings = (await api.call('GET', `/api/2.2/jobs/get?job_id=${jobId}`)).json.settings as Record<
      string,
      unknown
    >;
    expect(settings.name).toBe('replaced');
    expect(settings.tasks).toBeUndefined();
    expect(settings.run_as).toEqual({ user_name: 'a@b.c' });
  });

  it('adds the server-side defaults on read', async () => {
    const api = await fresh({ preloadJobs: false });
    const { job_clusters: _clusters, ...job } = twoTaskJob();
    const jobId = (
      await api.call('POST', '/api/2.2/jobs/create', {
        ...job,
        tasks: [
          {
            task_key: 'z',
            new_cluster: {
              spark_version: 'x',
              node_type_id: 'i3.xlarge',
              num_workers: 1,
              apply_policy_default_values: true,
            },
          },
          {
            task_key: 'y',
            depends_on: [{ task_key: 'z' }],
            new_cluster: { node_type_id: 'i3.xlarge', num_workers: 1 },
          },
        ],
      })
    ).json.job_id;
    const settings = (await api.call('GET', `/api/2.2/jobs/get?job_id=${jobId}`)).json.settings as Record<
      string,
      unknown
    >;
    expect(settings.email_notifications).toEqual({});
    expect(settings.webhook_notifications).toEqual({});
    const task = (settings.tasks as Array<Record<string, unknown>>)[0]!;
    expect(task.run_if).toBe('ALL_SUCCESS');
    expect(task.timeout_seconds).toBe(0);
    const cluster = task.new_cluster as Record<string, unknown>;
    expect(cluster.aws_attributes).toEqual({ availability: 'SPOT_WITH_FALLBACK', zone_id: 'us-east-1c' });
    expect(cluster.enable_elastic_disk).toBe(false);
    expect(cluster.data_security_mode).toBe('SINGLE_USER');
    expect(cluster.apply_policy_default_values).toBeUndefined();
  });
});

describe('pagination', () => {
  it('pages jobs/list with page tokens and honours the limit range', async () => {
    const api = await fresh();
    const seen: number[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await api.call('GET', `/api/2.2/jobs/list?limit=3${token ? `&page_token=${token}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...(page.json.jobs as Array<{ job_id: number }>).map((job) => job.job_id));
      token = page.json.next_page_token as string | undefined;
      if (pages > 0) expect(page.json.prev_page_token).toBeDefined();
      pages += 1;
    } while (token);
    expect(pages).toBe(Math.ceil(seen.length / 3));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(api.emulator.context.state.jobs.size);
    expect((await api.call('GET', '/api/2.2/jobs/list?limit=101')).status).toBe(400);
    const expanded = await api.call('GET', '/api/2.2/jobs/list?limit=1&expand_tasks=true');
    expect(
      ((expanded.json.jobs as Array<{ settings: Record<string, unknown> }>)[0]!.settings.tasks as unknown[])
        .length,
    ).toBe(1);
    const byName = await api.call('GET', '/api/2.2/jobs/list?name=SKEWED%20JOIN');
    expect((byName.json.jobs as unknown[]).length).toBe(1);
  });

  it('caps tasks at 100 per jobs/get and runs/get page in 2.2 and continues with page_token', async () => {
    const api = await fresh({ preloadJobs: false });
    const tasks = Array.from({ length: 130 }, (_, index) => ({
      task_key: `t${String(index).padStart(3, '0')}`,
      new_cluster: { node_type_id: 'm5.xlarge', num_workers: 1 },
      spark_python_task: { python_file: 'many-small-jobs.py' },
    }));
    const jobId = (await api.call('POST', '/api/2.2/jobs/create', { name: 'wide', tasks })).json.job_id;
    const first = await api.call('GET', `/api/2.2/jobs/get?job_id=${jobId}`);
    expect(((first.json.settings as Record<string, unknown>).tasks as unknown[]).length).toBe(100);
    const second = await api.call(
      'GET',
      `/api/2.2/jobs/get?job_id=${jobId}&page_token=${first.json.next_page_token}`,
    );
    expect(((second.json.settings as Record<string, unknown>).tasks as unknown[]).length).toBe(30);
    expect(second.json.next_page_token).toBeUndefined();
    const legacy = await api.call('GET', `/api/2.1/jobs/get?job_id=${jobId}`);
    expect(((legacy.json.settings as Record<string, unknown>).tasks as unknown[]).length).toBe(130);
    const runId = (await api.call('POST', '/api/2.2/jobs/run-now', { job_id: jobId })).json.run_id;
    const run = await api.call('GET', `/api/2.2/jobs/runs/get?run_id=${runId}`);
    expect((run.json.tasks as unknown[]).length).toBe(100);
    const rest = await api.call(
      'GET',
      `/api/2.2/jobs/runs/get?run_id=${runId}&page_token=${run.json.next_page_token}`,
    );
    expect((rest.json.tasks as unknown[]).length).toBe(30);
  });

  it('pages runs/list newest first and rejects a limit above 25', async () => {
    const api = await fresh();
    const runIds: number[] = [];
    for (let index = 0; index < 7; index += 1) {
      runIds.push((await api.call('POST', '/api/2.2/jobs/run-now', { job_id: 1002 })).json.run_id as number);
      await api.advance(60_000);
    }
    const seen: number[] = [];
    let token: string | undefined;
    do {
      const page = await api.call(
        'GET',
        `/api/2.2/jobs/runs/list?job_id=1002&limit=3${token ? `&page_token=${token}` : ''}`,
      );
      seen.push(...(page.json.runs as Array<{ run_id: number }>).map((run) => run.run_id));
      token = page.json.next_page_token as string | undefined;
    } while (token);
    expect(seen).toEqual([...runIds].reverse());
    expect((await api.call('GET', '/api/2.2/jobs/runs/list?limit=26')).status).toBe(400);
    const active = await api.call('GET', '/api/2.2/jobs/runs/list?job_id=1002&active_only=true&limit=25');
    expect((active.json.runs as unknown[]).length).toBeGreaterThan(0);
    await api.advance(6 * 3_600_000);
    const stillActive = await api.call('GET', '/api/2.2/jobs/runs/list?job_id=1002&active_only=true');
    expect(stillActive.json.runs).toEqual([]);
  });

  it('pages cluster events with the legacy next_page body and with page tokens', async () => {
    const api = await fresh();
    const runId = (await api.call('POST', '/api/2.2/jobs/run-now', { job_id: 1007 })).json.run_id;
    await api.advance(4 * 3_600_000);
    const run = await api.call('GET', `/api/2.2/jobs/runs/get?run_id=${runId}`);
    const clusterId = (run.json.tasks as Array<Record<string, { cluster_id: string }>>)[0]!.cluster_instance!
      .cluster_id;
    const all = await api.call('POST', '/api/2.1/clusters/events', {
      cluster_id: clusterId,
      limit: 500,
      order: 'ASC',
    });
    const total = all.json.total_count as number;
    const types = (all.json.events as Array<{ type: string }>).map((event) => event.type);
    expect(types[0]).toBe('CREATING');
    expect(types).toContain('RUNNING');
    expect(types).toContain('RESIZING');
    expect(types).toContain('UPSIZE_COMPLETED');
    expect(types[types.length - 1]).toBe('TERMINATING');
    const legacy: string[] = [];
    let body: Record<string, unknown> | undefined = { cluster_id: clusterId, limit: 2, order: 'ASC' };
    while (body) {
      const page = await api.call('POST', '/api/2.0/clusters/events', body);
      legacy.push(...(page.json.events as Array<{ type: string }>).map((event) => event.type));
      body = page.json.next_page as Record<string, unknown> | undefined;
    }
    expect(legacy).toEqual(types);
    const tokens: string[] = [];
    let token: string | undefined;
    do {
      const page = await api.call('POST', '/api/2.1/clusters/events', {
        cluster_id: clusterId,
        page_size: 3,
        order: 'ASC',
        ...(token ? { page_token: token } : {}),
      });
      tokens.push(...(page.json.events as Array<{ type: string }>).map((event) => event.type));
      token = page.json.next_page_token as string | undefined;
    } while (token);
    expect(tokens).toEqual(types);
    expect(total).toBe(types.length);
    const filtered = await api.call('POST', '/api/2.1/clusters/events', {
      cluster_id: clusterId,
      event_types: ['RUNNING'],
    });
    expect((filtered.json.events as unknown[]).length).toBe(1);
  });
});

describe('runs', () => {
  it('returns the same run for a repeated idempotency token', async () => {
    const api = await fresh();
    const first = await api.call('POST', '/api/2.2/jobs/run-now', { job_id: 1001, idempotency_token: 'abc' });
    const again = await api.call('POST', '/api/2.2/jobs/run-now', { job_id: 1001, idempotency_token: 'abc' });
    expect(again.json.run_id).toBe(first.json.run_id);
    const other = await api.call('POST', '/api/2.2/jobs/run-now', { job_id: 1001, idempotency_token: 'def' });
    expect(other.json.run_id).not.toBe(first.json.run_id);
  });

  it('moves a run PENDING → RUNNING → TERMINATED with end_time 0 until the end', async () => {
    const api = await fresh();
    const runId = (await api.call('POST', '/api/2.2/jobs/run-now', { job_id: 1003 })).json.run_id;
    const states: string[] = [];
    for (let step = 0; step < 200; step += 1) {
      const run = await api.call('GET', `/api/2.2/jobs/runs/get?run_id=${runId}`);
      const state = (run.json.state as { life_cycle_state: string }).life_cycle_state;
      if (states[states.length - 1] !== state) states.push(state);
      if (state === 'TERMINATED') {
        expect(run.json.end_time).toBeGreaterThan(run.json.start_time as number);
        expect((run.json.state as { result_state: string }).result_state).toBe('SUCCESS');
        break;
      }
      expect(run.json.end_time).toBe(0);
      await api.advance(30_000);
    }
    expect(states[0]).toBe('PENDING');
    expect(states).toContain('RUNNING');
    expect(states[states.length - 1]).toBe('TERMINATED');
  });

  it('cancels a running run and terminates its cluster', async () => {
    const api = await fresh();
    const runId = (await api.call('POST', '/api/2.2/jobs/run-now', { job_id: 1005 })).json.run_id;
    await api.advance(6 * 60_000);
    expect((await api.call('POST', '/api/2.2/jobs/runs/cancel', { run_id: runId })).status).toBe(200);
    await api.advance(60_000);
    const run = await api.call('GET', `/api/2.2/jobs/runs/get?run_id=${runId}`);
    expect(run.json.state).toMatchObject({
      life_cycle_state: 'TERMINATED',
      result_state: 'CANCELED',
      user_cancelled_or_timedout: true,
    });
    const clusterId = (run.json.tasks as Array<Record<string, { cluster_id: string }>>)[0]!.cluster_instance!
      .cluster_id;
    const cluster = await api.call('GET', `/api/2.1/clusters/get?cluster_id=${clusterId}`);
    expect(cluster.json.state).toBe('TERMINATED');
    expect((cluster.json.termination_reason as { code: string }).code).toBe('USER_REQUEST');
  });

  it('stops a run at timeout_seconds with TIMEDOUT and warns first when a health rule is exceeded', async () => {
    const api = await fresh();
    const destination = await api.call('POST', '/api/2.0/notification-destinations', {
      display_name: 'sla',
      config: { generic_webhook: { url: 'http://127.0.0.1:9/sla' } },
    });
    const hooks = [{ id: destination.json.id }];
    await api.call('POST', '/api/2.2/jobs/update', {
      job_id: 1005,
      new_settings: {
        timeout_seconds: 420,
        health: { rules: [{ metric: 'RUN_DURATION_SECONDS', op: 'GREATER_THAN', value: 300 }] },
        webhook_notifications: { on_duration_warning_threshold_exceeded: hooks, on_failure: hooks },
      },
    });
    const runId = (await api.call('POST', '/api/2.2/jobs/run-now', { job_id: 1005 })).json.run_id;
    await api.advance(12 * 3_600_000);
    const run = await api.call('GET', `/api/2.2/jobs/runs/get?run_id=${runId}`);
    expect(run.json.state).toMatchObject({
      life_cycle_state: 'TERMINATED',
      result_state: 'TIMEDOUT',
      user_cancelled_or_timedout: true,
    });
    expect(run.json.status).toMatchObject({ termination_details: { code: 'CANCELED' } });
    expect((run.json.end_time as number) - (run.json.start_time as number)).toBeLessThan(440_000);
    const deliveries = (await api.call('GET', '/emulator/admin/webhooks')).json.deliveries as Array<{
      eventType: string;
      atMs: number;
    }>;
    expect(deliveries.map((delivery) => delivery.eventType)).toEqual([
      'jobs.on_duration_warning_threshold_exceeded',
      'jobs.on_failure',
    ]);
    expect(deliveries[0]!.atMs).toBe((run.json.start_time as number) + 300_000);
  });

  it('rolls a failed task up to INTERNAL_ERROR/FAILED and marks downstream tasks UPSTREAM_FAILED', async () => {
    const api = await fresh({ preloadJobs: false });
    const jobId = (
      await api.call('POST', '/api/2.2/jobs/create', {
        name: 'oom',
        tasks: [
          {
            task_key: 'sort',
            new_cluster: { node_type_id: 'c5.xlarge', num_workers: 8 },
            spark_python_task: { python_file: 'spill-heavy-sort.py' },
          },
          {
            task_key: 'after',
            depends_on: [{ task_key: 'sort' }],
            new_cluster: { node_type_id: 'c5.xlarge', num_workers: 1 },
          },
        ],
      })
    ).json.job_id;
    const runId = (await api.call('POST', '/api/2.2/jobs/run-now', { job_id: jobId })).json.run_id;
    await api.advance(24 * 3_600_000);
    const run = await api.call('GET', `/api/2.2/jobs/runs/get?run_id=${runId}`);
    expect(run.json.state).toMatchObject({ life_cycle_state: 'INTERNAL_ERROR', result_state: 'FAILED' });
    expect((run.json.state as { state_message: string }).state_message).toBe(
      'Task sort failed with message: Workload failed, see run output for details.',
    );
    expect(run.json.status).toMatchObject({
      state: 'TERMINATED',
      termination_details: { code: 'RUN_EXECUTION_ERROR' },
    });
    const tasks = run.json.tasks as Array<{ task_key: string; state: { result_state: string } }>;
    expect(tasks.find((task) => task.task_key === 'after')!.state.result_state).toBe('UPSTREAM_FAILED');
  });
});

describe('clusters', () => {
  it('writes spark_context_id as a raw int64 number in clusters/get and as a string in runs', async () => {
    const api = await fresh();
    const runId = (await api.call('POST', '/api/2.2/jobs/run-now', { job_id: 1001 })).json.run_id;
    await api.advance(20 * 60_000);
    const run = await api.call('GET', `/api/2.2/jobs/runs/get?run_id=${runId}`);
    const instance = (
      run.json.tasks as Array<{ cluster_instance: { cluster_id: string; spark_context_id: string } }>
    )[0]!.cluster_instance;
    expect(typeof instance.spark_context_id).toBe('string');
    expect(BigInt(instance.spark_context_id) > 2n ** 53n).toBe(true);
    const cluster = await api.call('GET', `/api/2.1/clusters/get?cluster_id=${instance.cluster_id}`);
    expect(cluster.text).toContain(`"spark_context_id":${instance.spark_context_id},`);
    expect(cluster.json.cluster_source).toBe('JOB');
    expect(cluster.json.num_workers).toBe(8);
  });

  it("lists its cloud's node types with cores, memory and Photon capability", async () => {
    const api = await fresh();
    const response = await api.call('GET', '/api/2.1/clusters/list-node-types');
    const types = response.json.node_types as Array<Record<string, unknown>>;
    const i3 = types.find((type) => type.node_type_id === 'i3.xlarge')!;
    expect(i3).toMatchObject({ num_cores: 4, photon_worker_capable: true });
    // Cores and memory come from the price catalog's instance specs (i3.xlarge: 30.5 GiB).
    expect(i3.memory_mb).toBe(Math.round(30.5 * 1024));
    await api.emulator.close();
    const azure = await fresh({ cloud: 'azure' });
    const azureTypes = (await azure.call('GET', '/api/2.1/clusters/list-node-types')).json
      .node_types as Array<Record<string, unknown>>;
    expect(azureTypes.some((type) => type.node_type_id === 'Standard_DS3_v2')).toBe(true);
    expect(azureTypes.some((type) => type.node_type_id === 'Standard_D4ds_v5')).toBe(true);
  });
});

describe('rate limits and fault injection', () => {
  it('answers over-limit requests with 429 and an integer Retry-After', async () => {
    const api = await fresh({ rateLimitScale: 0.05 });
    const statuses: number[] = [];
    let retryAfter: unknown;
    for (let index = 0; index < 5; index += 1) {
      const response = await api.call('POST', '/api/2.2/jobs/update', { job_id: 1001, new_settings: {} });
      statuses.push(response.status);
      if (response.status === 429) {
        retryAfter = response.headers['retry-after'];
        expect(response.json.error_code).toBe('REQUEST_LIMIT_EXCEEDED');
      }
    }
    expect(statuses[0]).toBe(200);
    expect(statuses).toContain(429);
    expect(String(retryAfter)).toMatch(/^\d+$/);
  });

  it('applies a rule after its offset, for its count only', async () => {
    const api = await fresh();
    await api.call('POST', '/emulator/admin/faults', {
      kind: 'http',
      match: 'GET /api/2.*/jobs/get*',
      offset: 1,
      count: 2,
      status: 503,
      retryAfterSeconds: 7,
    });
    const statuses: number[] = [];
    for (let index = 0; index < 5; index += 1) {
      const response = await api.call('GET', '/api/2.2/jobs/get?job_id=1001');
      statuses.push(response.status);
      if (response.status === 503) {
        expect(response.headers['retry-after']).toBe('7');
        expect(response.json.error_code).toBe('TEMPORARILY_UNAVAILABLE');
      }
    }
    expect(statuses).toEqual([200, 503, 503, 200, 200]);
  });

  it('scripts a permission error with the real error code', async () => {
    const api = await fresh({ faults: [{ kind: 'http', match: '/api/2.2/jobs/reset', status: 403 }] });
    const denied = await api.call('POST', '/api/2.2/jobs/reset', {
      job_id: 1001,
      new_settings: { name: 'x' },
    });
    expect(denied.status).toBe(403);
    expect(denied.json.error_code).toBe('PERMISSION_DENIED');
    expect((await api.call('GET', '/api/2.2/jobs/get?job_id=1001')).json.settings).toMatchObject({
      name: 'Join-heavy ETL',
    });
  });

  it('keeps the state change but loses the response in afterHandler mode', async () => {
    const api = await fresh({
      faults: [{ kind: 'http', match: 'POST */jobs/run-now', count: 1, status: 500, afterHandler: true }],
    });
    const lost = await api.call('POST', '/api/2.2/jobs/run-now', { job_id: 1002 });
    expect(lost.status).toBe(500);
    const runs = await api.call('GET', '/api/2.2/jobs/runs/list?job_id=1002');
    expect((runs.json.runs as unknown[]).length).toBe(1);
    const faults = await api.call('GET', '/emulator/admin/faults');
    expect((faults.json.faults as Array<{ applied: number }>)[0]!.applied).toBe(1);
  });

  it('delays logs, truncates or drops event logs by job name', async () => {
    const api = await fresh({
      faults: [
        { kind: 'missing-eventlog', match: 'Skewed join', count: 1 },
        { kind: 'truncate-eventlog', match: 'Daily aggregation', count: 1 },
      ],
    });
    const skewed = (await api.call('POST', '/api/2.2/jobs/run-now', { job_id: 1003 })).json.run_id;
    const daily = (await api.call('POST', '/api/2.2/jobs/run-now', { job_id: 1002 })).json.run_id;
    await api.advance(24 * 3_600_000);
    const clusterOf = async (runId: unknown) =>
      (
        (await api.call('GET', `/api/2.2/jobs/runs/get?run_id=${runId}`)).json.tasks as Array<{
          cluster_instance: { cluster_id: string };
        }>
      )[0]!.cluster_instance.cluster_id;
    const skewedCluster = await clusterOf(skewed);
    expect(
      (await api.call('GET', `/api/2.0/dbfs/get-status?path=/cluster-logs/${skewedCluster}/driver/stdout`))
        .status,
    ).toBe(200);
    expect(
      (await api.call('GET', `/api/2.0/dbfs/get-status?path=/cluster-logs/${skewedCluster}/eventlog`)).status,
    ).toBe(404);
    const dailyCluster = await clusterOf(daily);
    const folder = await api.call('GET', `/api/2.0/dbfs/list?path=/cluster-logs/${dailyCluster}/eventlog`);
    const contextDir = (
      await api.call(
        'GET',
        `/api/2.0/dbfs/list?path=${(folder.json.files as Array<{ path: string }>)[0]!.path}`,
      )
    ).json.files as Array<{ path: string }>;
    const read = await api.call(
      'GET',
      `/api/2.0/dbfs/read?path=${contextDir[0]!.path}/eventlog&length=1048576`,
    );
    const text = Buffer.from(read.json.data as string, 'base64').toString('utf8');
    const lastLine = text.slice(text.lastIndexOf('\n') + 1);
    expect(lastLine.length).toBeGreaterThan(0);
    expect(() => JSON.parse(lastLine)).toThrow();
  });

  it('drops webhooks that match a drop-webhook rule and records them', async () => {
    const api = await fresh({ faults: [{ kind: 'drop-webhook', match: 'jobs.on_start' }] });
    const destination = await api.call('POST', '/api/2.0/notification-destinations', {
      display_name: 'nowhere',
      config: { generic_webhook: { url: 'http://127.0.0.1:9/hook' } },
    });
    await api.call('POST', '/api/2.2/jobs/update', {
      job_id: 1003,
      new_settings: { webhook_notifications: { on_start: [{ id: destination.json.id }] } },
    });
    await api.call('POST', '/api/2.2/jobs/run-now', { job_id: 1003 });
    const deliveries = (await api.call('GET', '/emulator/admin/webhooks')).json.deliveries as Array<{
      dropped: boolean;
      eventType: string;
    }>;
    expect(deliveries).toEqual([expect.objectContaining({ eventType: 'jobs.on_start', dropped: true })]);
  });
});

describe('DBFS, Files API, workspace, secrets and notification destinations', () => {
  it('reads DBFS files in base64 chunks of at most 1 MB with the real errors', async () => {
    const api = await fresh();
    const bytes = Buffer.alloc(2_500_000, 0).map((_, index) => index % 251);
    api.emulator.context.fs.write('/data/blob.bin', bytes, 0);
    const chunks: Buffer[] = [];
    let offset = 0;
    for (;;) {
      const response = await api.call(
        'GET',
        `/api/2.0/dbfs/read?path=dbfs:/data/blob.bin&offset=${offset}&length=1048576`,
      );
      expect(response.status).toBe(200);
      const read = response.json.bytes_read as number;
      if (read === 0) break;
      chunks.push(Buffer.from(response.json.data as string, 'base64'));
      offset += read;
    }
    expect(chunks.length).toBe(3);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    const tooBig = await api.call('GET', '/api/2.0/dbfs/read?path=/data/blob.bin&length=1048577');
    expect(tooBig.status).toBe(400);
    expect(tooBig.json.error_code).toBe('MAX_READ_SIZE_EXCEEDED');
    expect((await api.call('GET', '/api/2.0/dbfs/read?path=/data&length=10')).json.error_code).toBe(
      'INVALID_PARAMETER_VALUE',
    );
    expect((await api.call('GET', '/api/2.0/dbfs/read?path=/data/blob.bin&offset=-1')).json.error_code).toBe(
      'INVALID_PARAMETER_VALUE',
    );
    const missing = await api.call('GET', '/api/2.0/dbfs/get-status?path=/nope');
    expect(missing.status).toBe(404);
    expect(missing.json.error_code).toBe('RESOURCE_DOES_NOT_EXIST');
    const listing = await api.call('GET', '/api/2.0/dbfs/list?path=/data');
    expect(listing.json.files).toEqual([
      { path: '/data/blob.bin', is_dir: false, file_size: 2_500_000, modification_time: 0 },
    ]);
  });

  it('writes with put and create/add-block/close', async () => {
    const api = await fresh();
    await api.call('POST', '/api/2.0/dbfs/put', {
      path: '/a.txt',
      contents: Buffer.from('hello').toString('base64'),
    });
    expect(
      (await api.call('POST', '/api/2.0/dbfs/put', { path: '/a.txt', contents: '' })).json.error_code,
    ).toBe('RESOURCE_ALREADY_EXISTS');
    const handle = (await api.call('POST', '/api/2.0/dbfs/create', { path: '/b.txt' })).json.handle;
    await api.call('POST', '/api/2.0/dbfs/add-block', { handle, data: Buffer.from('ab').toString('base64') });
    await api.call('POST', '/api/2.0/dbfs/add-block', { handle, data: Buffer.from('cd').toString('base64') });
    await api.call('POST', '/api/2.0/dbfs/close', { handle });
    const read = await api.call('GET', '/api/2.0/dbfs/read?path=/b.txt');
    expect(Buffer.from(read.json.data as string, 'base64').toString()).toBe('abcd');
  });

  it('serves /Volumes through the Files API with Range reads and paged directory listings', async () => {
    const api = await fresh();
    for (let index = 0; index < 5; index += 1) {
      api.emulator.context.fs.write(
        `/Volumes/main/ops/logs/f${index}.txt`,
        Buffer.from(`file ${index}`),
        1000 + index,
      );
    }
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await api.call(
        'GET',
        `/api/2.0/fs/directories/Volumes/main/ops/logs?page_size=2${token ? `&page_token=${token}` : ''}`,
      );
      expect(page.status).toBe(200);
      names.push(...(page.json.contents as Array<{ name: string }>).map((entry) => entry.name));
      token = page.json.next_page_token as string | undefined;
    } while (token);
    expect(names).toEqual(['f0.txt', 'f1.txt', 'f2.txt', 'f3.txt', 'f4.txt']);
    const whole = await api.call('GET', '/api/2.0/fs/files/Volumes/main/ops/logs/f3.txt');
    expect(whole.text).toBe('file 3');
    const part = await api.call('GET', '/api/2.0/fs/files/Volumes/main/ops/logs/f3.txt', undefined, {
      range: 'bytes=2-3',
    });
    expect(part.status).toBe(206);
    expect(part.text).toBe('le');
    const head = await api.call('HEAD', '/api/2.0/fs/files/Volumes/main/ops/logs/f3.txt');
    expect(head.headers['content-length']).toBe('6');
    const missing = await api.call('GET', '/api/2.0/fs/files/Volumes/main/ops/logs/none.txt');
    expect(missing.status).toBe(404);
    expect(missing.json.error_code).toBe('NOT_FOUND');
  });

  it('imports workspace files and refuses to overwrite without overwrite=true', async () => {
    const api = await fresh();
    const body = {
      path: '/Shared/etl',
      content: Buffer.from('print(1)').toString('base64'),
      format: 'SOURCE',
      language: 'PYTHON',
    };
    expect((await api.call('POST', '/api/2.0/workspace/import', body)).status).toBe(200);
    const again = await api.call('POST', '/api/2.0/workspace/import', body);
    expect(again.json.error_code).toBe('RESOURCE_ALREADY_EXISTS');
    expect((await api.call('POST', '/api/2.0/workspace/import', { ...body, overwrite: true })).status).toBe(
      200,
    );
    const status = await api.call('GET', '/api/2.0/workspace/get-status?path=/Shared/etl');
    expect(status.json).toMatchObject({ object_type: 'NOTEBOOK', language: 'PYTHON' });
    const listing = await api.call('GET', '/api/2.0/workspace/list?path=/Shared');
    expect((listing.json.objects as Array<{ path: string }>).map((object) => object.path)).toEqual([
      '/Shared/etl',
    ]);
  });

  it('stores secrets in scopes and lists keys without values', async () => {
    const api = await fresh();
    await api.call('POST', '/api/2.0/secrets/scopes/create', { scope: 'setpoint' });
    expect(
      (await api.call('POST', '/api/2.0/secrets/scopes/create', { scope: 'setpoint' })).json.error_code,
    ).toBe('RESOURCE_ALREADY_EXISTS');
    await api.call('POST', '/api/2.0/secrets/put', {
      scope: 'setpoint',
      key: 'webhook-password',
      string_value: 's3cret',
    });
    const listed = await api.call('GET', '/api/2.0/secrets/list?scope=setpoint');
    expect(listed.json.secrets).toEqual([
      { key: 'webhook-password', last_updated_timestamp: expect.any(Number) },
    ]);
    expect(listed.text).not.toContain('s3cret');
    expect((await api.call('GET', '/api/2.0/secrets/list?scope=none')).status).toBe(404);
  });

  it('keeps webhook credentials write-only and pages destinations', async () => {
    const api = await fresh();
    const created = await api.call('POST', '/api/2.0/notification-destinations', {
      display_name: 'setpoint',
      config: { generic_webhook: { url: 'https://example.com/hook', username: 'user', password: 'pass' } },
    });
    expect(created.json).toMatchObject({
      display_name: 'setpoint',
      destination_type: 'WEBHOOK',
      config: { generic_webhook: { url_set: true, username_set: true, password_set: true } },
    });
    expect(created.text).not.toContain('pass"');
    for (let index = 0; index < 3; index += 1) {
      await api.call('POST', '/api/2.0/notification-destinations', {
        display_name: `d${index}`,
        config: { generic_webhook: { url: 'https://example.com/other' } },
      });
    }
    const ids: string[] = [];
    let token: string | undefined;
    do {
      const page = await api.call(
        'GET',
        `/api/2.0/notification-destinations?page_size=3${token ? `&page_token=${token}` : ''}`,
      );
      ids.push(...(page.json.results as Array<{ id: string }>).map((result) => result.id));
      token = page.json.next_page_token as string | undefined;
    } while (token);
    expect(ids.length).toBe(4);
    const patched = await api.call('PATCH', `/api/2.0/notification-destinations/${created.json.id}`, {
      display_name: 'renamed',
    });
    expect(patched.json.display_name).toBe('renamed');
    expect(
      api.emulator.context.state.destinations.get(created.json.id as string)!.config.generic_webhook!
        .password,
    ).toBe('pass');
    const empty = await api.call('PATCH', `/api/2.0/notification-destinations/${created.json.id}`);
    expect(empty.status).toBe(400);
    const twoKinds = await api.call('POST', '/api/2.0/notification-destinations', {
      display_name: 'x',
      config: { generic_webhook: { url: 'https://a.b' }, slack: { url: 'https://c.d' } },
    });
    expect(twoKinds.status).toBe(400);
  });
});

describe('log delivery', () => {
  it('delivers the event log in the Databricks layout with hourly rolled gzip parts', async () => {
    const api = await fresh({ preloadJobs: false });
    const jobId = (
      await api.call('POST', '/api/2.2/jobs/create', {
        name: 'long',
        tasks: [
          {
            task_key: 'main',
            spark_python_task: { python_file: 'cpu-bound-ml.py' },
            new_cluster: { ...newCluster, node_type_id: 'm5.xlarge', num_workers: 1 },
          },
        ],
      })
    ).json.job_id;
    // Start at 06:50 so that the run crosses hour boundaries and the log rolls.
    await api.advance(50 * 60_000);
    const runId = (await api.call('POST', '/api/2.2/jobs/run-now', { job_id: jobId })).json.run_id;
    await api.advance(30 * 60_000);
    const run = await api.call('GET', `/api/2.2/jobs/runs/get?run_id=${runId}`);
    const instance = (
      run.json.tasks as Array<{ cluster_instance: { cluster_id: string; spark_context_id: string } }>
    )[0]!.cluster_instance;
    const base = `/logs/${instance.cluster_id}/eventlog`;
    // Periodic delivery while the cluster runs: the live eventlog exists before the run ends.
    const middle = (await api.call('GET', `/api/2.0/dbfs/list?path=${base}`)).json.files as Array<{
      path: string;
    }>;
    expect(middle[0]!.path).toMatch(new RegExp(`${base}/${instance.cluster_id}_10_\\d+_\\d+_\\d+$`));
    await api.advance(8 * 3_600_000);
    const folder = `${middle[0]!.path}/${instance.spark_context_id}`;
    const files = (await api.call('GET', `/api/2.0/dbfs/list?path=${folder}`)).json.files as Array<{
      path: string;
      file_size: number;
    }>;
    const names = files.map((file) => file.path.slice(folder.length + 1));
    expect(names).toContain('eventlog');
    const parts = names.filter((name) => /^eventlog-\d{4}-\d{2}-\d{2}--\d{2}-00\.gz$/.test(name));
    expect(parts.length).toBeGreaterThanOrEqual(1);
    const partData = api.emulator.context.fs.read(`${folder}/${parts[0]}`);
    const firstLine = new TextDecoder().decode(gunzipSync(partData)).split('\n')[0]!;
    expect(firstLine).toContain('"Rollover Number":0');
    expect(firstLine).toContain(`"SparkContext Id":${instance.spark_context_id}}`);
    const live = new TextDecoder().decode(api.emulator.context.fs.read(`${folder}/eventlog`)).split('\n')[0]!;
    expect(live).toContain(`"Rollover Number":${parts.length}`);
    const cluster = await api.call('GET', `/api/2.1/clusters/get?cluster_id=${instance.cluster_id}`);
    expect((cluster.json.cluster_log_status as { last_attempted: number }).last_attempted).toBeGreaterThan(
      cluster.json.terminated_time as number,
    );
  });
});
