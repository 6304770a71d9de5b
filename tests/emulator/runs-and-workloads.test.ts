import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkloadRegistry } from '@setpoint/databricks-emulator/workloads/workload-registry';
import { afterAll, describe, expect, it } from 'vitest';
import { freshEmulators } from './support.js';

const scratch = mkdtempSync(join(tmpdir(), 'setpoint-emulator-runs-'));
const fresh = freshEmulators();

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type TaskView = {
  task_key: string;
  start_time: number;
  end_time: number;
  cluster_instance: { cluster_id: string };
  state: { result_state?: string };
};

describe('multi-task runs', () => {
  it('runs the two-cluster pipeline on two job clusters in dependency order, logging to DBFS and a Volume', async () => {
    const api = await fresh();
    const runId = (await api.call('POST', '/api/2.2/jobs/run-now', { job_id: 1010 })).json.run_id;
    await api.advance(12 * 3_600_000);
    const run = await api.call('GET', `/api/2.2/jobs/runs/get?run_id=${runId}`);
    expect(run.json.state).toMatchObject({ result_state: 'SUCCESS' });
    const tasks = run.json.tasks as TaskView[];
    const ingest = tasks.find((task) => task.task_key === 'ingest')!;
    const transform = tasks.find((task) => task.task_key === 'transform')!;
    expect(ingest.cluster_instance.cluster_id).not.toBe(transform.cluster_instance.cluster_id);
    expect(transform.start_time).toBeGreaterThanOrEqual(ingest.start_time);
    const ingestCluster = await api.call(
      'GET',
      `/api/2.1/clusters/get?cluster_id=${ingest.cluster_instance.cluster_id}`,
    );
    const transformCluster = await api.call(
      'GET',
      `/api/2.1/clusters/get?cluster_id=${transform.cluster_instance.cluster_id}`,
    );
    expect(ingestCluster.json.node_type_id).toBe('m5d.xlarge');
    expect(transformCluster.json.node_type_id).toBe('r5d.2xlarge');
    // The transform cluster is requested only once ingest has finished its work.
    expect(transformCluster.json.start_time as number).toBeGreaterThan(
      ingestCluster.json.start_time as number,
    );
    expect((run.json.job_clusters as unknown[]).length).toBe(2);
    expect(
      api.emulator.context.fs.stat(`/cluster-logs/${ingest.cluster_instance.cluster_id}/eventlog`)?.isDir,
    ).toBe(true);
    expect(
      api.emulator.context.fs.stat(
        `/Volumes/main/ops/cluster_logs/${transform.cluster_instance.cluster_id}/eventlog`,
      )?.isDir,
    ).toBe(true);
  });

  it('runs only the tasks named in `only`', async () => {
    const api = await fresh();
    const runId = (await api.call('POST', '/api/2.2/jobs/run-now', { job_id: 1010, only: ['transform'] }))
      .json.run_id;
    const run = await api.call('GET', `/api/2.2/jobs/runs/get?run_id=${runId}`);
    expect((run.json.tasks as TaskView[]).map((task) => task.task_key)).toEqual(['transform']);
  });

  it('sends task-level webhooks with the parent run id', async () => {
    const received: Array<Record<string, unknown>> = [];
    let resolveSuccess: () => void = () => {};
    const gotSuccess = new Promise<void>((resolve) => {
      resolveSuccess = resolve;
    });
    const server = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      request.on('end', () => {
        const body = JSON.parse(text) as Record<string, unknown>;
        received.push(body);
        if (body.event_type === 'jobs.on_success') resolveSuccess();
        response.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const api = await fresh({ preloadJobs: false });
      const destination = await api.call('POST', '/api/2.0/notification-destinations', {
        display_name: 'task hooks',
        config: { generic_webhook: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` } },
      });
      const runId = (
        await api.call('POST', '/api/2.2/jobs/runs/submit', {
          run_name: 'one-off',
          tasks: [
            {
              task_key: 'only',
              new_cluster: { node_type_id: 'm5.xlarge', num_workers: 2 },
              spark_python_task: { python_file: 'skewed-join.py' },
              webhook_notifications: { on_success: [{ id: destination.json.id }] },
            },
          ],
        })
      ).json.run_id as number;
      await api.advance(12 * 3_600_000);
      await gotSuccess;
      const run = await api.call('GET', `/api/2.2/jobs/runs/get?run_id=${runId}`);
      expect(run.json.run_type).toBe('SUBMIT_RUN');
      const taskRunId = (run.json.tasks as Array<{ run_id: number }>)[0]!.run_id;
      expect(received).toEqual([
        expect.objectContaining({
          event_type: 'jobs.on_success',
          task: { task_key: 'only' },
          run: { run_id: String(taskRunId), parent_run_id: String(runId) },
        }),
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('determinism', () => {
  it('gives the same run the same timings in two emulators with the same seed, and different ones with another seed', async () => {
    const durations = async (seed: number) => {
      const api = await fresh({ seed });
      const runId = (await api.call('POST', '/api/2.2/jobs/run-now', { job_id: 1004 })).json.run_id;
      await api.advance(12 * 3_600_000);
      const run = await api.call('GET', `/api/2.2/jobs/runs/get?run_id=${runId}`);
      const task = (run.json.tasks as Array<{ setup_duration: number; execution_duration: number }>)[0]!;
      return [task.setup_duration, task.execution_duration];
    };
    const first = await durations(5);
    expect(await durations(5)).toEqual(first);
    expect(await durations(6)).not.toEqual(first);
  });
});

describe('workload registry', () => {
  it('resolves tasks to workloads by file base name and loads imported models from a directory', () => {
    const directory = join(scratch, 'workloads');
    const registry = new WorkloadRegistry();
    expect(
      registry.resolveTask({ spark_python_task: { python_file: 'dbfs:/x/io-bound-scan.py' } }).name,
    ).toBe('io-bound-scan');
    expect(
      registry.resolveTask({ notebook_task: { notebook_path: '/Repos/etl/photon-friendly-sql' } }).name,
    ).toBe('photon-friendly-sql');
    expect(registry.resolveTask({ spark_python_task: { python_file: 'unknown.py' } }).name).toBe(
      'daily-aggregation',
    );
    const model = {
      name: 'tiny',
      jobs: [{ name: 'one', stages: [{ id: 0, name: 's', tasks: 2, cpuSecondsPerTask: 1 }] }],
    };
    rmSync(directory, { recursive: true, force: true });
    mkdirSync(directory);
    writeFileSync(join(directory, 'tiny.json'), JSON.stringify(model));
    expect(registry.loadDirectory(directory)).toBe(1);
    expect(
      registry.resolveTask({ spark_python_task: { python_file: 'tiny.py' } }).jobs[0]!.stages[0]!.tasks,
    ).toBe(2);
    writeFileSync(join(directory, 'broken.json'), JSON.stringify({ name: 'Bad Name', jobs: [] }));
    expect(() => registry.loadDirectory(directory)).toThrow(/is not a workload model/);
  });

  it('mirrors delivered files below the state directory', async () => {
    const state = join(scratch, 'state');
    const api = await fresh({ stateDirectory: state });
    await api.call('POST', '/api/2.2/jobs/run-now', { job_id: 1002 });
    await api.advance(12 * 3_600_000);
    const clusters = readdirSync(join(state, 'cluster-logs'));
    expect(clusters.length).toBe(1);
    expect(readdirSync(join(state, 'cluster-logs', clusters[0]!))).toEqual([
      'driver',
      'eventlog',
      'init_scripts',
    ]);
  });
});
