import { defaultWarehouseId } from '@setpoint/databricks-emulator/server/statements-routes';
import { describe, expect, it } from 'vitest';
import { freshEmulators, type TestEmulator } from './support.js';

const fresh = freshEmulators();
const minuteMs = 60_000;
const hourMs = 3_600_000;

const sharedCluster = (extra: Record<string, unknown> = {}) => ({
  cluster_name: 'shared analytics',
  spark_version: '15.4.x-scala2.12',
  node_type_id: 'r5d.xlarge',
  num_workers: 2,
  autotermination_minutes: 60,
  ...extra,
});

async function createCluster(api: TestEmulator, body: Record<string, unknown>): Promise<string> {
  const created = await api.call('POST', '/api/2.1/clusters/create', body);
  expect(created.status, created.text).toBe(200);
  return created.json.cluster_id as string;
}

async function clusterOf(api: TestEmulator, clusterId: string) {
  const answer = await api.call('GET', `/api/2.1/clusters/get?cluster_id=${clusterId}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.json as Record<string, unknown> & { state: string };
}

async function stateAfter(api: TestEmulator, clusterId: string, ms: number): Promise<string> {
  await api.advance(ms);
  return (await clusterOf(api, clusterId)).state;
}

async function billing(api: TestEmulator, clusterId: string) {
  const answer = await api.call('POST', '/api/2.0/sql/statements', {
    warehouse_id: defaultWarehouseId,
    statement: `SELECT u.sku_name, u.usage_quantity, u.usage_metadata.job_id AS job_id, u.billing_origin_product,
                       u.usage_start_time
                FROM system.billing.usage u WHERE u.usage_metadata.cluster_id = :cluster
                ORDER BY u.usage_start_time`,
    parameters: [{ name: 'cluster', value: clusterId }],
    wait_timeout: '10s',
  });
  expect(answer.status, answer.text).toBe(200);
  const rows = ((answer.json.result ?? {}) as { data_array?: Array<Array<string | null>> }).data_array ?? [];
  return rows.map(([sku, quantity, jobId, product, start]) => ({
    sku,
    dbus: Number(quantity),
    jobId,
    product,
    start,
  }));
}

describe('all-purpose clusters in the emulator', () => {
  it('creates, runs, terminates by inactivity, starts, restarts, edits and deletes a cluster as the Clusters API does', async () => {
    const api = await fresh();
    const clusterId = await createCluster(api, sharedCluster());
    expect((await clusterOf(api, clusterId)).state).toBe('PENDING');
    expect(await stateAfter(api, clusterId, 5 * minuteMs)).toBe('RUNNING');
    const running = await clusterOf(api, clusterId);
    expect(running).toMatchObject({ cluster_source: 'API', autotermination_minutes: 60, num_workers: 2 });
    expect(running.spark_context_id).toBeDefined();
    const listed = await api.call('GET', '/api/2.1/clusters/list');
    expect(
      (listed.json.clusters as Array<{ cluster_id: string }>).map((entry) => entry.cluster_id),
    ).toContain(clusterId);

    // idle for its autotermination minutes: terminated for inactivity
    expect(await stateAfter(api, clusterId, 61 * minuteMs)).toBe('TERMINATED');
    expect((await clusterOf(api, clusterId)).termination_reason).toMatchObject({ code: 'INACTIVITY' });
    const restartTerminated = await api.call('POST', '/api/2.1/clusters/restart', { cluster_id: clusterId });
    expect(restartTerminated.status).toBe(400);
    expect(restartTerminated.json.error_code).toBe('INVALID_STATE');

    expect((await api.call('POST', '/api/2.1/clusters/start', { cluster_id: clusterId })).status).toBe(200);
    expect(await stateAfter(api, clusterId, 5 * minuteMs)).toBe('RUNNING');
    expect((await api.call('POST', '/api/2.1/clusters/restart', { cluster_id: clusterId })).status).toBe(200);
    expect((await clusterOf(api, clusterId)).state).toBe('RESTARTING');
    expect(await stateAfter(api, clusterId, 5 * minuteMs)).toBe('RUNNING');

    // an edit of a running cluster restarts it with the new shape
    const edited = await api.call('POST', '/api/2.1/clusters/edit', {
      cluster_id: clusterId,
      ...sharedCluster({ num_workers: 4 }),
    });
    expect(edited.status, edited.text).toBe(200);
    expect((await clusterOf(api, clusterId)).state).toBe('RESTARTING');
    expect(await stateAfter(api, clusterId, 5 * minuteMs)).toBe('RUNNING');
    expect((await clusterOf(api, clusterId)).num_workers).toBe(4);

    expect((await api.call('POST', '/api/2.1/clusters/delete', { cluster_id: clusterId })).status).toBe(200);
    expect(await stateAfter(api, clusterId, minuteMs)).toBe('TERMINATED');
    expect((await clusterOf(api, clusterId)).termination_reason).toMatchObject({ code: 'USER_REQUEST' });
    const events = await api.call('POST', '/api/2.1/clusters/events', {
      cluster_id: clusterId,
      order: 'ASC',
    });
    expect((events.json.events as Array<{ type: string }>).map((event) => event.type)).toEqual([
      'CREATING',
      'RUNNING',
      'TERMINATING',
      'STARTING',
      'RUNNING',
      'RESTARTING',
      'RUNNING',
      'EDITED',
      'RESTARTING',
      'RUNNING',
      'TERMINATING',
    ]);

    expect(
      (await api.call('POST', '/api/2.1/clusters/permanent-delete', { cluster_id: clusterId })).status,
    ).toBe(200);
    const gone = await api.call('GET', `/api/2.1/clusters/get?cluster_id=${clusterId}`);
    expect(gone.status).toBe(400);
    expect(gone.json.message).toBe(`Cluster ${clusterId} does not exist`);
  });

  it('refuses a cluster Databricks would refuse, on create and edit, and creates nothing', async () => {
    const api = await fresh();
    const before = api.emulator.context.state.allPurposeClusters.size;
    const refused = await api.call(
      'POST',
      '/api/2.1/clusters/create',
      sharedCluster({ num_workers: undefined, autoscale: { min_workers: 2, max_workers: 2 } }),
    );
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      error_code: 'INVALID_PARAMETER_VALUE',
      message: expect.stringMatching(/max_workers \(2\) must be strictly greater than min_workers \(2\)/),
    });
    expect(api.emulator.context.state.allPurposeClusters.size).toBe(before);

    const clusterId = await createCluster(api, sharedCluster());
    await api.advance(5 * minuteMs);
    const badEdit = await api.call('POST', '/api/2.1/clusters/edit', {
      cluster_id: clusterId,
      ...sharedCluster({ node_type_id: 'Standard_D4ds_v5' }),
    });
    expect(badEdit.status).toBe(400);
    expect((await clusterOf(api, clusterId)).node_type_id).toBe('r5d.xlarge');
    const refusals = await api.call('GET', '/emulator/admin/refusals');
    expect((refusals.json.refusals as Array<{ endpoint: string }>).map((entry) => entry.endpoint)).toEqual(
      expect.arrayContaining(['/api/2.1/clusters/create', '/api/2.1/clusters/edit']),
    );
  });

  it('runs an existing_cluster_id task on the cluster, starting it when terminated, and bills the cluster as all-purpose compute', async () => {
    const api = await fresh();
    const clusterId = await createCluster(api, sharedCluster({ autotermination_minutes: 30 }));
    const job = await api.call('POST', '/api/2.2/jobs/create', {
      name: 'report on the shared cluster',
      tasks: [
        {
          task_key: 'report',
          existing_cluster_id: clusterId,
          spark_python_task: { python_file: 'dbfs:/jobbank/daily-aggregation.py' },
        },
      ],
    });
    expect(job.status, job.text).toBe(200);
    const jobId = job.json.job_id as number;

    // while the cluster starts, the task waits for it; then it runs on the cluster's Spark context
    const first = (await api.call('POST', '/api/2.2/jobs/run-now', { job_id: jobId })).json.run_id as number;
    const firstRecord = api.emulator.context.state.runs.get(first)!;
    await api.advance(firstRecord.endMs - api.emulator.context.clock.now() + 1_000);
    const run = (await api.call('GET', `/api/2.2/jobs/runs/get?run_id=${first}`)).json as {
      state: { result_state: string };
      tasks: Array<{
        existing_cluster_id: string;
        cluster_instance: { cluster_id: string; spark_context_id: string };
      }>;
    };
    expect(run.state.result_state).toBe('SUCCESS');
    expect(run.tasks[0]!.existing_cluster_id).toBe(clusterId);
    expect(run.tasks[0]!.cluster_instance.cluster_id).toBe(clusterId);
    const cluster = await clusterOf(api, clusterId);
    expect(cluster.state).toBe('RUNNING');
    // clusters/get writes the context id as a bare int64, runs carry it as a string
    const raw = await api.call('GET', `/api/2.1/clusters/get?cluster_id=${clusterId}`);
    expect(raw.text).toContain(`"spark_context_id":${run.tasks[0]!.cluster_instance.spark_context_id}`);
    // the task's runtime is the physics on this shape: more workers, a shorter run
    const firstExecution = firstRecord.tasks[0]!.execEndMs - firstRecord.tasks[0]!.execStartMs;

    // idle past autotermination: terminated; the next run starts it again (a new Spark context)
    expect(await stateAfter(api, clusterId, 40 * minuteMs)).toBe('TERMINATED');
    const second = (await api.call('POST', '/api/2.2/jobs/run-now', { job_id: jobId })).json.run_id as number;
    const secondRecord = api.emulator.context.state.runs.get(second)!;
    expect(secondRecord.tasks[0]!.execStartMs - secondRecord.tasks[0]!.startMs).toBeGreaterThan(2 * minuteMs);
    await api.advance(secondRecord.endMs - api.emulator.context.clock.now() + 1_000);
    expect((await clusterOf(api, clusterId)).state).toBe('RUNNING');
    expect(secondRecord.tasks[0]!.allPurpose!.sparkContextId).not.toBe(
      firstRecord.tasks[0]!.allPurpose!.sparkContextId,
    );

    const bigger = await createCluster(api, sharedCluster({ num_workers: 8, autotermination_minutes: 30 }));
    await api.advance(10 * minuteMs);
    await api.call('POST', '/api/2.2/jobs/update', {
      job_id: jobId,
      new_settings: {
        tasks: [
          {
            task_key: 'report',
            existing_cluster_id: bigger,
            spark_python_task: { python_file: 'dbfs:/jobbank/daily-aggregation.py' },
          },
        ],
      },
    });
    const third = (await api.call('POST', '/api/2.2/jobs/run-now', { job_id: jobId })).json.run_id as number;
    const thirdTask = api.emulator.context.state.runs.get(third)!.tasks[0]!;
    expect(thirdTask.execEndMs - thirdTask.execStartMs).toBeLessThan(firstExecution);

    // billed by the hour under the all-purpose SKU with the cluster's id, never under a job
    await api.advance(6 * hourMs);
    const rows = await billing(api, clusterId);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row).toMatchObject({ sku: 'PREMIUM_ALL_PURPOSE_COMPUTE', jobId: null, product: 'ALL_PURPOSE' });
      expect(row.dbus).toBeGreaterThan(0);
    }
    // r5d.xlarge: 4 cores; driver + 2 workers for as long as the cluster was up (two lives)
    const node = api.emulator.context.state.allPurposeClusters.get(clusterId)!.lives[0]!.sim.nodeType;
    const dbusPerHour = 3 * node.cores * node.dbuPerCoreHour;
    const upHours =
      api.emulator.context.state.allPurposeClusters
        .get(clusterId)!
        .lives.reduce(
          (sum, life) =>
            sum +
            (Math.min(life.stoppedMs ?? Number.POSITIVE_INFINITY, life.lastActivityMs + 30 * minuteMs) +
              15_000 -
              life.startMs -
              30_000),
          0,
        ) / hourMs;
    const billed = rows.reduce((sum, row) => sum + row.dbus, 0);
    expect(billed).toBeCloseTo(dbusPerHour * upHours, 6);
  });
});
