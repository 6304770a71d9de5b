import { createServer } from 'node:http';
import type { CostTotals } from '@setpoint/api-contract';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { findClusterSpec } from 'setpoint/platforms/databricks/jobs/job-clusters';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  copyJob,
  eventually,
  type Harness,
  importJob,
  jobIdByName,
  processedRun,
  startHarness,
} from './integration-harness.js';

// The first recommendation of the process learns the shipped fleet prior (seconds on a busy machine).
vi.setConfig({ testTimeout: 180_000 });

describe('the closed loop against the emulator', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ seed: 11 });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('applies a recommendation to the job automatically after a run', async () => {
    const { jobId, projectId, ref } = await importJob(h, await jobIdByName(h.databricks, 'Skewed join'), {
      autoApply: true,
      slaMinutes: 240,
    });

    await processedRun(h, projectId, await h.databricks.runNow(jobId));
    const applied = await eventually(async () => {
      const history = await h.server.services.applies.history(projectId);
      return history.find((config) => config.kind === 'auto-apply');
    }, 'an automatic apply');
    const job = await h.databricks.getJob(jobId);
    const spec = ref && findClusterSpec(job.settings, ref);

    expect(spec?.node_type_id).toBe(applied.configuration.node_type_id);
    expect(spec?.num_workers ?? spec?.autoscale).toEqual(
      applied.configuration.num_workers ?? applied.configuration.autoscale,
    );
    expect(spec?.cluster_log_conf).toBeDefined();
    expect(spec?.custom_tags?.['setpoint:recommendation-id']).toBe(applied.recommendationId);

    // the next run carries the tag into its cluster report, linking it to the recommendation it tried
    const next = await processedRun(h, projectId, await h.databricks.runNow(jobId));
    expect(next.recommendationId).toBe(applied.recommendationId);
  });

  it('judges each job cluster of a pipeline on its own tasks', async () => {
    const jobId = await jobIdByName(h.databricks, 'Two-cluster pipeline');
    const [imported] = await databricksIntegrationOf(h.server.services).onboarding.importJobs(
      h.workspaceId,
      { jobIds: [jobId], settings: {} },
      'test',
    );
    const runId = await h.databricks.runNow(jobId);
    const projects = imported?.projects ?? [];
    expect(projects).toHaveLength(2);

    const runs = await Promise.all(projects.map((project) => processedRun(h, project.id, runId)));
    const whole = await h.databricks.getRun(runId);

    for (const run of runs) {
      // the first cluster's log is complete long before the job run ends
      expect(run.status).toBe('SUCCESS');
      expect(run.startedAt).not.toBeNull();
      expect(run.endedAt).not.toBeNull();
    }
    const [first, second] = [...runs].sort((a, b) => (a.startedAt ?? 0) - (b.startedAt ?? 0));
    expect(first?.endedAt ?? Infinity).toBeLessThanOrEqual(second?.startedAt ?? 0);
    expect((first?.endedAt ?? 0) - (first?.startedAt ?? 0)).toBeLessThan(whole.end_time - whole.start_time);
  });

  it('collects a one-time run submitted for a project that is not linked to a job', async () => {
    const project = await h.server.services.projects.create(
      { name: 'airflow-orders', workspaceId: h.workspaceId, appId: 'orders-dag' },
      'test',
    );
    const submitted = await fetch(`${h.emulator.url}/api/2.2/jobs/runs/submit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.emulator.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        run_name: 'orders from airflow',
        tasks: [
          {
            task_key: 'orders',
            new_cluster: {
              spark_version: '15.4.x-scala2.12',
              node_type_id: 'm5.xlarge',
              num_workers: '2',
              cluster_log_conf: { dbfs: { destination: 'dbfs:/cluster-logs/airflow' } },
            },
            spark_python_task: { python_file: 'dbfs:/jobbank/daily-aggregation.py' },
          },
        ],
      }),
    });
    const runId = String(((await submitted.json()) as { run_id: number }).run_id);
    await eventually(async () => {
      const run = await h.databricks.getRun(runId);
      return run.state.life_cycle_state === 'TERMINATED' ? run : undefined;
    }, 'the one-time run to finish');
    const key = await h.server.services.apiKeys.create('collect-test', 'test');
    const { accessToken } = await h.server.services.apiKeys.exchange(key.id, key.secret);

    const queued = await h.server.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${project.id}/databricks-runs`,
      headers: { authorization: `Bearer ${accessToken}` },
      payload: { run_id: runId },
    });

    expect(queued.statusCode).toBe(202);
    const run = await processedRun(h, project.id, runId);
    expect(run).toMatchObject({ status: 'SUCCESS', pipelineState: 'DONE' });
    expect(run.clusterFacts?.nodeTypeId).toBe('m5.xlarge');
  });

  it('pauses auto-apply when someone else edits the cluster, audits it and alerts on it', async () => {
    const received: string[] = [];
    const receiver = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        received.push(body);
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const alerts = h.server.services.alerts;
    const destination = await alerts.createDestination(
      {
        kind: 'webhook',
        name: 'platform team',
        url: `http://127.0.0.1:${port}/hook`,
        signing_secret: 'whsec-external-0123456789',
        max_per_hour: 30,
      },
      'test',
    );
    await alerts.createRule(
      {
        project_id: null,
        event: 'external_change',
        destination_id: destination.id,
        params: { threshold_pct: 20, window_runs: 5, at_risk_fraction: 0.9 },
        enabled: true,
      },
      'test',
    );
    const { jobId, projectId, ref } = await importJob(
      h,
      await jobIdByName(h.databricks, 'CPU-bound ML scoring'),
      {
        autoApply: true,
        slaMinutes: 240,
      },
    );
    const job = await h.databricks.getJob(jobId);
    const spec = ref && findClusterSpec(job.settings, ref);
    const task = job.settings.tasks?.[0];
    await h.databricks.updateJob(jobId, {
      tasks: [{ ...task, task_key: 'main', new_cluster: { ...spec, num_workers: 7 } }],
    });

    await processedRun(h, projectId, await h.databricks.runNow(jobId));
    const guard = await eventually(async () => {
      const state = await h.server.services.applies.guard(projectId);
      return state.paused ? state : undefined;
    }, 'auto-apply to pause');

    expect(guard.pauseReason).toMatch(/changed outside Setpoint \(num_workers\)/);
    const history = await h.server.services.applies.history(projectId);
    expect(history.some((config) => config.kind === 'auto-apply')).toBe(false);

    const trail = await h.server.services.audit.page({ projectId, action: 'external_change' }, 10, 0);
    expect(trail.rows[0]).toMatchObject({ actor: 'external', detail: { fields: ['num_workers'] } });
    // Evaluated twice (the server's own timer may run too): one notification, de-duplicated.
    await alerts.evaluate();
    await alerts.evaluate();
    const sent = await eventually(async () => {
      const page = await alerts.notifications({ limit: 10, offset: 0, projectId });
      return page.rows.find((row) => row.event === 'external_change' && row.status === 'SENT');
    }, 'the external-change notification');
    const all = await alerts.notifications({ limit: 10, offset: 0, projectId });
    expect(all.rows.filter((row) => row.event === 'external_change')).toHaveLength(1);
    expect(sent.title).toMatch(/cluster was changed outside Setpoint \(num_workers\); auto-apply is paused/);
    expect(received.map((body) => JSON.parse(body).event)).toEqual(['external_change']);
    receiver.close();
  });

  it('collects through a storm of 429s and 503s', async () => {
    const { jobId, projectId } = await importJob(h, await jobIdByName(h.databricks, 'Daily aggregation'), {});
    h.emulator.context.faults.add({
      kind: 'http',
      match: 'GET /api/2.*/jobs/runs/get*',
      count: 4,
      status: 429,
      retryAfterSeconds: 0,
    });
    h.emulator.context.faults.add({ kind: 'http', match: 'GET /api/2.0/dbfs/read*', count: 3, status: 503 });

    const run = await processedRun(h, projectId, await h.databricks.runNow(jobId));

    expect(run.pipelineState).toBe('DONE');
  });

  it('finds a run whose webhooks were lost after a later run of the job arrived', async () => {
    // a job of its own: the other tests import the shipped ones
    const { jobId, projectId } = await importJob(
      h,
      await copyJob(h, 'Daily aggregation', 'Lost webhooks'),
      {},
    );
    // both webhooks of the first run (start and end) are lost; the second run's arrive
    h.emulator.context.faults.add({ kind: 'drop-webhook', match: 'jobs.on_*', count: 2 });
    const lost = await h.databricks.runNow(jobId);
    await eventually(async () => {
      const run = await h.databricks.getRun(lost);
      return run.state.life_cycle_state === 'TERMINATED' ? run : undefined;
    }, 'the first run to finish');
    await processedRun(h, projectId, await h.databricks.runNow(jobId));
    await databricksIntegrationOf(h.server.services).scheduleReconciliation('test-later');

    const run = await processedRun(h, projectId, lost);
    expect(run.externalRunId).toBe(lost);
    const page = await h.server.services.runs.list(projectId, { limit: 50, offset: 0 });
    expect(page.items.filter((item) => item.externalRunId === lost)).toHaveLength(1);
  });

  it('finds a run whose webhook was lost, by reconciliation', async () => {
    const { jobId, projectId } = await importJob(h, await jobIdByName(h.databricks, 'Many small jobs'), {});
    h.emulator.context.faults.add({ kind: 'drop-webhook', match: 'jobs.on_*', count: 2 });

    const runId = await h.databricks.runNow(jobId);
    await eventually(async () => {
      const run = await h.databricks.getRun(runId);
      return run.state.life_cycle_state === 'TERMINATED' ? run : undefined;
    }, 'the run to finish');
    await databricksIntegrationOf(h.server.services).scheduleReconciliation('test-1');

    const run = await processedRun(h, projectId, runId);
    expect(run.externalRunId).toBe(runId);
  });

  it('serves the projects table figures and the organization summary from the collected runs', async () => {
    const key = await h.server.services.apiKeys.create('dashboard-test', 'test');
    const { accessToken } = await h.server.services.apiKeys.exchange(key.id, key.secret);
    const headers = { authorization: `Bearer ${accessToken}` };

    const list = await h.server.app.inject({ method: 'GET', url: '/api/v1/projects?limit=100', headers });
    const summary = await h.server.app.inject({
      method: 'GET',
      // the emulator's clock runs ahead of the wall clock, so the period is open-ended
      url: `/api/v1/insights/summary?from=0&to=${Number.MAX_SAFE_INTEGER}`,
      headers,
    });

    const withRuns = (
      list.json().items as Array<{ summary?: { runs: number; cost_per_run_usd: number | null } }>
    ).filter((project) => (project.summary?.runs ?? 0) > 0);
    expect(withRuns.length).toBeGreaterThanOrEqual(3);
    expect(withRuns.every((project) => (project.summary?.cost_per_run_usd ?? 0) > 0)).toBe(true);
    const spend = summary.json().spend as CostTotals;
    expect(spend.total_usd).toBeGreaterThan(0);
    expect(Object.values(spend.by_kind).reduce((sum, usd) => sum + usd, 0)).toBeCloseTo(spend.total_usd, 6);
    expect(spend.by_kind.platform_fee).toBeGreaterThan(0);
  });
});
