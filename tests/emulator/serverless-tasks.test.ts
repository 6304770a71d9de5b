import { serverlessMaxWorkers } from '@setpoint/databricks-emulator/server/serverless-tasks';
import { defaultWarehouseId } from '@setpoint/databricks-emulator/server/statements-routes';
import { describe, expect, it } from 'vitest';
import { freshEmulators, type TestEmulator } from './support.js';

const fresh = freshEmulators();
const hourMs = 3_600_000;

const serverlessJob = (extra: Record<string, unknown> = {}) => ({
  name: 'serverless aggregation',
  environments: [{ environment_key: 'default', spec: { client: '2' } }],
  tasks: [
    {
      task_key: 'main',
      environment_key: 'default',
      spark_python_task: { python_file: 'dbfs:/jobbank/daily-aggregation.py' },
    },
  ],
  ...extra,
});

async function createJob(api: TestEmulator, settings: Record<string, unknown>) {
  const created = await api.call('POST', '/api/2.2/jobs/create', settings);
  expect(created.status, created.text).toBe(200);
  return created.json.job_id as number;
}

/** Runs the job to its end (and `after` beyond it) and returns the run as runs/get shows it. */
async function finished(api: TestEmulator, body: Record<string, unknown>, after = 0) {
  const runId = (await api.call('POST', '/api/2.2/jobs/run-now', body)).json.run_id as number;
  const record = api.emulator.context.state.runs.get(runId)!;
  await api.advance(record.endMs - api.emulator.context.clock.now() + after + 1_000);
  return (await api.call('GET', `/api/2.2/jobs/runs/get?run_id=${runId}`)).json as {
    run_id: number;
    effective_performance_target?: string;
    tasks: Array<Record<string, unknown> & { setup_duration: number; execution_duration: number }>;
  };
}

async function usageRows(api: TestEmulator, runId: number) {
  const answer = await api.call('POST', '/api/2.0/sql/statements', {
    warehouse_id: defaultWarehouseId,
    statement: `SELECT u.usage_quantity, u.record_type, u.sku_name, u.usage_metadata.cluster_id AS cluster_id,
                       u.usage_metadata.job_id AS job_id,
                       CASE WHEN u.product_features.is_serverless = true THEN 'yes' ELSE 'no' END AS is_serverless,
                       u.product_features.performance_target AS performance_target, p.pricing.default AS price
                FROM system.billing.usage u JOIN system.billing.list_prices p
                  ON u.sku_name = p.sku_name AND p.price_end_time IS NULL
                WHERE u.usage_metadata.job_run_id = :run`,
    parameters: [{ name: 'run', value: String(runId) }],
    wait_timeout: '10s',
  });
  expect(answer.status, answer.text).toBe(200);
  const { data_array: rows = [] } = (answer.json.result ?? {}) as {
    data_array?: Array<Array<string | null>>;
  };
  return rows.map(([quantity, type, sku, clusterId, jobId, serverless, target, price]) => ({
    quantity: Number(quantity),
    type,
    sku,
    clusterId,
    jobId,
    serverless,
    target,
    price: Number(price),
  }));
}

describe('serverless tasks in the emulator', () => {
  it('starts standard runs in 4 to 6 minutes and performance-optimized ones in under one, without a cluster', async () => {
    const api = await fresh();
    const jobId = await createJob(api, serverlessJob({ performance_target: 'STANDARD' }));

    const standard = await finished(api, { job_id: jobId });
    const optimized = await finished(api, { job_id: jobId, performance_target: 'PERFORMANCE_OPTIMIZED' });

    expect(standard.effective_performance_target).toBe('STANDARD');
    expect(standard.tasks[0]).toMatchObject({
      environment_key: 'default',
      effective_performance_target: 'STANDARD',
    });
    expect(standard.tasks[0]?.setup_duration).toBeGreaterThanOrEqual(4 * 60_000);
    expect(standard.tasks[0]?.setup_duration).toBeLessThanOrEqual(6 * 60_000);
    expect(optimized.effective_performance_target).toBe('PERFORMANCE_OPTIMIZED');
    expect(optimized.tasks[0]?.setup_duration).toBeLessThan(60_000);
    expect(standard.tasks[0]?.cluster_instance).toBeUndefined();
    expect(api.emulator.context.state.clusters.size).toBe(0);
  });

  it('refuses an unknown performance mode and an environment the job does not declare', async () => {
    const api = await fresh();
    const badMode = await api.call(
      'POST',
      '/api/2.2/jobs/create',
      serverlessJob({ performance_target: 'FAST' }),
    );
    const badEnvironment = await api.call(
      'POST',
      '/api/2.2/jobs/create',
      serverlessJob({ environments: [] }),
    );

    expect(badMode.status).toBe(400);
    expect(badEnvironment.status).toBe(400);
    expect(badEnvironment.text).toMatch(
      /environment with key default referenced by task main does not exist/,
    );
  });

  it('bills a run in several serverless records per hour that sum to its DBUs, at one price in both modes', async () => {
    const api = await fresh({ systemTables: { billingLagMs: hourMs, restatementRate: 0.5 } });
    const jobId = await createJob(api, serverlessJob());
    const perNodeSecond: Record<string, number> = {};
    const dbus: Record<string, number> = {};
    for (const target of ['STANDARD', 'PERFORMANCE_OPTIMIZED']) {
      // long enough after the run for every record, restatements included (6 h later)
      const run = await finished(api, { job_id: jobId, performance_target: target }, 12 * hourMs);
      const truth = api.emulator.context.state.runs.get(run.run_id)!.tasks[0]!.serverless!;
      const rows = await usageRows(api, run.run_id);

      const originals = rows.filter((row) => row.type === 'ORIGINAL');
      expect(originals.length).toBeGreaterThanOrEqual(2);
      expect(rows.every((row) => row.serverless === 'yes' && row.clusterId === null)).toBe(true);
      expect(rows.every((row) => row.target === target && row.jobId === String(jobId))).toBe(true);
      expect(new Set(rows.map((row) => row.sku))).toEqual(
        new Set(['PREMIUM_JOBS_SERVERLESS_COMPUTE_US_WEST_OREGON']),
      );
      expect(rows.every((row) => row.price === 0.35)).toBe(true);
      const billed = rows.reduce((sum, row) => sum + row.quantity, 0);
      expect(billed).toBeCloseTo(truth.dbus, 9);
      perNodeSecond[target] = billed / truth.nodeSeconds;
      dbus[target] = billed;
    }
    // the same price per DBU; standard bills 30 % fewer DBUs for each node-second that ran, and fewer in all
    expect(perNodeSecond.STANDARD! / perNodeSecond.PERFORMANCE_OPTIMIZED!).toBeCloseTo(0.7, 9);
    expect(dbus.STANDARD!).toBeLessThan(dbus.PERFORMANCE_OPTIMIZED!);
  });

  it('scales serverless compute to each stage’s tasks up to the scale-up limit and bills what ran', async () => {
    const api = await fresh();
    const ranWith = async (workload: string, target: string) => {
      const jobId = await createJob(
        api,
        serverlessJob({
          name: workload,
          performance_target: target,
          tasks: [
            {
              task_key: 'main',
              environment_key: 'default',
              spark_python_task: { python_file: `dbfs:/jobbank/${workload}.py` },
            },
          ],
        }),
      );
      const run = await finished(api, { job_id: jobId });
      const truth = (await api.call('GET', `/emulator/admin/runs/${run.run_id}`)).json as {
        serverless_tasks: Array<{
          execution_ms: number;
          dbus: number;
          peak_workers: number;
          node_seconds: number;
        }>;
      };
      return truth.serverless_tasks[0]!;
    };
    // many-small-jobs' stages have at most 8 tasks (one worker's cores); io-bound-scan's scan has 1,200
    const small = await ranWith('many-small-jobs', 'PERFORMANCE_OPTIMIZED');
    const wide = await ranWith('io-bound-scan', 'PERFORMANCE_OPTIMIZED');
    const wideStandard = await ranWith('io-bound-scan', 'STANDARD');

    expect(small.peak_workers).toBe(1);
    expect(wide.peak_workers).toBe(serverlessMaxWorkers);
    // standard adds compute more slowly: a run that scales up takes longer
    expect(wideStandard.peak_workers).toBeLessThanOrEqual(serverlessMaxWorkers);
    expect(wideStandard.execution_ms).toBeGreaterThan(wide.execution_ms);
    for (const task of [small, wide, wideStandard]) {
      // the driver for the whole execution and at most the limit's workers beside it
      expect(task.node_seconds).toBeGreaterThanOrEqual(task.execution_ms / 1000);
      expect(task.node_seconds).toBeLessThanOrEqual(((serverlessMaxWorkers + 1) * task.execution_ms) / 1000);
    }
    // a one-worker job is billed for about its driver and one worker, not for a fixed fleet
    expect(small.node_seconds).toBeLessThanOrEqual((2 * small.execution_ms) / 1000 + 1e-9);
  });
});
