import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Harness, importJob, jobIdByName, processedRun, startHarness } from './integration-harness.js';

// A missing log is retried eight times with the queue's doubling, jittered delay (from 0.2 s here: 25 s of
// waiting on average, up to 38 s) before the run is kept without it, and `processedRun` itself waits up to
// 90 s: under the default 60 s, a slow draw of the jitter on a busy machine could time the test out.
vi.setConfig({ testTimeout: 180_000 });

describe('late, cut and missing event logs', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ seed: 31 });
  });

  afterAll(async () => {
    await h?.close();
  });

  async function dbfsEventLogBytes(runId: string): Promise<number> {
    const run = await h.databricks.getRun(runId);
    const clusterId = run.tasks?.[0]?.cluster_instance?.cluster_id;
    const contextId = run.tasks?.[0]?.cluster_instance?.spark_context_id;
    const driverDirs = await h.databricks.dbfsList(`dbfs:/cluster-logs/${clusterId}/eventlog`);
    const files = await h.databricks.dbfsList(`${driverDirs[0]?.path}/${contextId}`);
    return files
      .filter((file) => file.path.split('/').pop()?.startsWith('eventlog'))
      .reduce((sum, file) => sum + file.file_size, 0);
  }

  it('waits for logs delivered late and then collects them complete', async () => {
    const { jobId, projectId } = await importJob(h, await jobIdByName(h.databricks, 'Daily aggregation'));
    const rule = h.emulator.context.faults.add({
      kind: 'log-delay',
      match: 'Daily aggregation',
      count: 1,
      extraDelaySeconds: 1800,
    });

    const runId = await h.databricks.runNow(jobId);
    const run = await processedRun(h, projectId, runId);
    const finished = await h.databricks.getRun(runId);
    const cluster = await h.databricks.getCluster(finished.tasks?.[0]?.cluster_instance?.cluster_id ?? '');

    expect(rule.applied).toBe(1);
    expect(
      (cluster.cluster_log_status?.last_attempted ?? 0) - (cluster.terminated_time ?? 0),
    ).toBeGreaterThanOrEqual(1_800_000);
    expect(run.pipelineState).toBe('DONE');
    expect(run.status).toBe('SUCCESS');
    expect(run.eventlogBytes).toBe(await dbfsEventLogBytes(runId));
  });

  it('stores a run whose event log was cut off, says so, and goes on', async () => {
    const { jobId, projectId } = await importJob(h, await jobIdByName(h.databricks, 'Join-heavy ETL'));
    h.emulator.context.faults.add({ kind: 'truncate-eventlog', match: 'Join-heavy ETL', count: 1 });

    const runId = await h.databricks.runNow(jobId);
    const run = await processedRun(h, projectId, runId);
    const detail = await h.server.services.runs.get(projectId, run.id);

    expect(run.pipelineState).toBe('DONE');
    expect(run.status).toBe('INCOMPLETE');
    expect(run.error).toMatch(/ends mid-line: it was cut off/);
    expect(run.eventlogBytes).toBe(await dbfsEventLogBytes(runId));
    expect(detail.profileSummary?.tasks).toBeGreaterThan(0);
    // the next run of the same job is collected whole again
    const next = await processedRun(h, projectId, await h.databricks.runNow(jobId));
    expect(next).toMatchObject({ pipelineState: 'DONE', status: 'SUCCESS', error: null });
  });

  it('records a run whose event log never arrived as incomplete, without a log', async () => {
    const { jobId, projectId } = await importJob(h, await jobIdByName(h.databricks, 'Many small jobs'));
    h.emulator.context.faults.add({ kind: 'missing-eventlog', match: 'Many small jobs', count: 1 });

    const runId = await h.databricks.runNow(jobId);
    const run = await processedRun(h, projectId, runId);
    const key = await h.server.services.apiKeys.create('log-faults', 'test');
    const { accessToken } = await h.server.services.apiKeys.exchange(key.id, key.secret);
    const listed = await h.server.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${projectId}/runs`,
      headers: { authorization: `Bearer ${accessToken}` },
    });

    expect(run).toMatchObject({ pipelineState: 'FAILED', status: 'INCOMPLETE', eventlogBytes: null });
    expect(run.error).toMatch(/no event log was delivered within the wait/);
    expect(run.clusterConfig).toBeNull();
    expect(listed.statusCode).toBe(200);
    const items = listed.json().items as Array<{
      external_run_id?: string;
      externalRunId?: string;
      status: string;
    }>;
    expect(items.find((item) => (item.external_run_id ?? item.externalRunId) === runId)?.status).toBe(
      'INCOMPLETE',
    );
  });
});
