import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { findClusterSpec } from 'setpoint/platforms/databricks/jobs/job-clusters';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copyJob,
  eventually,
  type Harness,
  insertRecommendation,
  startHarness,
} from './integration-harness.js';

const reportTask = (clusterId: string) => ({
  task_key: 'report',
  existing_cluster_id: clusterId,
  spark_python_task: { python_file: 'dbfs:/jobbank/daily-aggregation.py' },
});

/**
 * A job on a shared all-purpose cluster (`existing_cluster_id`): Setpoint sees it and says why it does not
 * manage it, never rewrites its task into a job cluster it did not ask for, and never edits the shared
 * cluster; in a job that also has a job cluster, only the job cluster is managed.
 */
describe('jobs on an all-purpose cluster', () => {
  let h: Harness;
  let clusterId = '';

  const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const response = await fetch(`${h.emulator.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${h.emulator.token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const sharedCluster = async () => call('GET', `/api/2.1/clusters/get?cluster_id=${clusterId}`);
  const finished = async (jobId: string) => {
    const { run_id: runId } = await call('POST', '/api/2.2/jobs/run-now', { job_id: Number(jobId) });
    return eventually(async () => {
      const run = await h.databricks.getRun(String(runId));
      return run.state.life_cycle_state === 'TERMINATED' ? run : undefined;
    }, `run ${runId} to finish`);
  };

  beforeAll(async () => {
    h = await startHarness({ seed: 43 });
    ({ cluster_id: clusterId } = (await call('POST', '/api/2.1/clusters/create', {
      cluster_name: 'shared analytics',
      spark_version: '15.4.x-scala2.12',
      node_type_id: 'r5d.xlarge',
      num_workers: 2,
      autotermination_minutes: 120,
    })) as { cluster_id: string });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('Discover names the job as all-purpose compute, without a per-job cost, and import leaves it alone', async () => {
    const jobId = await copyJob(h, 'Daily aggregation', 'Report on the shared cluster', (settings) => {
      settings.tasks = [reportTask(clusterId)];
      delete settings.job_clusters;
    });
    const run = await finished(jobId);
    expect(run.state.result_state).toBe('SUCCESS');
    expect(run.tasks?.[0]?.cluster_instance?.cluster_id).toBe(clusterId);

    const integration = databricksIntegrationOf(h.server.services);
    const discovered = await integration.discover(h.workspaceId, 30);
    const job = discovered.jobs.find((entry) => entry.jobId === jobId);
    expect(job).toMatchObject({ compute: 'all_purpose', monthlyCostUsd: null });
    expect(job?.costNote).toMatch(/all-purpose cluster: its cost is shared with the other work on it/);
    expect(discovered.findings.find((finding) => finding.id === 'all-purpose')?.jobIds).toContain(jobId);

    const before = await h.databricks.getJob(jobId);
    const cluster = await sharedCluster();
    const [imported] = await integration.onboarding.importJobs(h.workspaceId, { jobIds: [jobId] }, 'test');
    expect(imported?.projects).toEqual([]);
    expect(imported?.skipped).toEqual([
      {
        what: 'task "report"',
        reason:
          'runs on an existing all-purpose cluster shared with other work; Setpoint changes only job clusters',
      },
    ]);
    // nothing written: not the job (no webhook, no log destination, no job cluster), not the shared cluster
    expect((await h.databricks.getJob(jobId)).settings).toEqual(before.settings);
    expect(await sharedCluster()).toMatchObject({
      num_workers: cluster.num_workers,
      node_type_id: 'r5d.xlarge',
    });
  });

  it('in a job with a job cluster too, only the job cluster is managed: an applied recommendation leaves the shared task and cluster as they were', async () => {
    const jobId = await copyJob(
      h,
      'Daily aggregation',
      'Daily aggregation and a shared report',
      (settings) => {
        settings.tasks = [
          ...(settings.tasks as Array<Record<string, unknown>>),
          { ...reportTask(clusterId), depends_on: [{ task_key: 'main' }] },
        ];
      },
    );
    const integration = databricksIntegrationOf(h.server.services);
    const [imported] = await integration.onboarding.importJobs(h.workspaceId, { jobIds: [jobId] }, 'test');
    expect(imported?.projects).toHaveLength(1);
    expect(imported?.skipped.map((entry) => entry.what)).toEqual(['task "report"']);
    const project = imported!.projects[0]!;
    const settings = (await h.databricks.getJob(jobId)).settings;
    const managed = settings.tasks?.find((task) => task.task_key === 'main');
    const current = managed?.new_cluster ?? settings.job_clusters?.[0]?.new_cluster;
    expect(current).toBeDefined();

    const configuration = {
      node_type_id: current!.node_type_id,
      ...(current!.autoscale
        ? { autoscale: { min_workers: 2, max_workers: (current!.autoscale.max_workers ?? 2) + 2 } }
        : { num_workers: (current!.num_workers ?? 1) + 1 }),
    };
    await insertRecommendation(h.server, project.id, 'rec_more_workers', configuration, 'more workers');
    await h.server.services.applies.apply(project.id, 'rec_more_workers', { actor: 'test', kind: 'apply' });

    const after = (await h.databricks.getJob(jobId)).settings;
    const report = after.tasks?.find((task) => task.task_key === 'report');
    expect(report?.existing_cluster_id).toBe(clusterId);
    expect(report?.new_cluster).toBeUndefined();
    expect(report?.job_cluster_key).toBeUndefined();
    expect(after.job_clusters ?? []).toHaveLength((settings.job_clusters ?? []).length);
    const appliedTo = findClusterSpec(after, {
      kind: managed?.new_cluster ? 'task_cluster' : 'job_cluster',
      ...(managed?.new_cluster ? { taskKey: 'main' } : { jobClusterKey: String(managed?.job_cluster_key) }),
    } as Parameters<typeof findClusterSpec>[1]);
    expect(appliedTo).toMatchObject(configuration);
    expect(await sharedCluster()).toMatchObject({ num_workers: 2, node_type_id: 'r5d.xlarge' });

    // the job still runs: the managed task on its job cluster, the report on the shared cluster
    const run = await finished(jobId);
    expect(run.state.result_state).toBe('SUCCESS');
    const clusters = Object.fromEntries(
      (run.tasks ?? []).map((task) => [task.task_key, task.cluster_instance?.cluster_id]),
    );
    expect(clusters.report).toBe(clusterId);
    expect(clusters.main).not.toBe(clusterId);
  });
});
