import { defaultWarehouseId } from '@setpoint/databricks-emulator/server/statements-routes';
import { createStatementClient } from 'setpoint/platforms/databricks/api/statements';
import { reconcileBilling } from 'setpoint/platforms/databricks/billing/billing-reconciler';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { createServerlessBillingReader } from 'setpoint/platforms/databricks/serverless/serverless-billing-reader';
import { createSystemTablesReader } from 'setpoint/platforms/databricks/system-tables/system-tables-reader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type Harness, processedRun, startHarness } from './integration-harness.js';

const hourMs = 3_600_000;

describe('serverless performance-mode advice through the service', () => {
  let h: Harness;
  const call = async (path: string, body?: unknown) => {
    const response = await fetch(`${h.emulator.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${h.emulator.token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
    return response.json() as Promise<Record<string, unknown>>;
  };
  const createJob = async (name: string, workload: string) =>
    String(
      (
        await call('/api/2.2/jobs/create', {
          name,
          environments: [{ environment_key: 'default', spec: { client: '2' } }],
          tasks: [
            {
              task_key: 'main',
              environment_key: 'default',
              spark_python_task: { python_file: `dbfs:/jobbank/${workload}.py` },
            },
          ],
        })
      ).job_id,
    );
  const runNow = async (jobId: string) =>
    String((await call('/api/2.2/jobs/run-now', { job_id: Number(jobId) })).run_id);
  const recommendationOf = (projectId: string, runId: string) =>
    eventually(async () => {
      const page = await h.server.services.recommendations.list(projectId, { limit: 20, offset: 0 });
      return page.items.find((item) => item.basedOnRunId === runId && item.state !== 'PENDING');
    }, `the recommendation of run ${runId}`);
  const importServerless = async (jobId: string, settings: Record<string, unknown>) => {
    const [imported] = await databricksIntegrationOf(h.server.services).onboarding.importJobs(
      h.workspaceId,
      { jobIds: [jobId], settings },
      'test',
    );
    return imported!.projects[0]!.id;
  };
  /** Runs the job once and waits for Setpoint's recommendation from it. */
  const runAndRecommend = async (jobId: string, projectId: string) => {
    const run = await processedRun(h, projectId, await runNow(jobId));
    return { run, recommendation: await recommendationOf(projectId, run.id) };
  };

  beforeAll(async () => {
    h = await startHarness({
      seed: 38,
      emulator: { systemTables: { billingLagMs: hourMs, restatementRate: 0 } },
    });
    await databricksIntegrationOf(h.server.services).checkAccess(
      h.workspaceId,
      undefined,
      defaultWarehouseId,
    );
  });
  afterAll(async () => h?.close());

  it('tries standard mode where the SLA allows its start-up, auto-applies it, and keeps it for what it saves', async () => {
    const jobId = await createJob('Serverless nightly', 'daily-aggregation');
    const projectId = await importServerless(jobId, { slaMinutes: 240, autoApply: true });
    const integration = databricksIntegrationOf(h.server.services);
    expect((await h.server.services.applies.history(projectId)).map((entry) => entry.configuration)).toEqual([
      { performance_target: 'PERFORMANCE_OPTIMIZED' },
    ]);

    const first = await runAndRecommend(jobId, projectId);
    expect(first.recommendation.configuration).toEqual({ performance_target: 'PERFORMANCE_OPTIMIZED' });
    expect(first.recommendation.explanation).toMatch(/two successful runs are needed/);

    const second = await runAndRecommend(jobId, projectId);
    expect(second.recommendation.configuration).toEqual({ performance_target: 'STANDARD' });
    expect(second.recommendation.decision).toMatchObject({
      action: 'change',
      change: 'performance optimized → standard',
      learning: { active: true },
    });
    expect(second.recommendation.explanation).toMatch(/a trial run.*P = 1\.00 ≥ 0\.9/);
    // auto-apply writes the mode through the apply core, like any change
    const written = await eventually(async () => {
      const job = await h.databricks.getJob(jobId);
      return job.settings.performance_target === 'STANDARD' ? job : undefined;
    }, 'performance_target written into the job');
    expect(written.settings.tasks?.[0]?.environment_key).toBe('default');
    const history = await h.server.services.applies.history(projectId);
    expect(history.at(-1)?.configuration).toEqual({ performance_target: 'STANDARD' });

    const third = await runAndRecommend(jobId, projectId);
    const detail = await h.server.services.runs.get(projectId, third.run.id);
    expect(detail.clusterConfig).toEqual({ performance_target: 'STANDARD' });
    expect(third.recommendation.configuration).toEqual({ performance_target: 'STANDARD' });
    expect(third.recommendation.decision?.action).toBe('keep');

    // once every run is billed, the advice states the saving it measured
    await call('/emulator/admin/clock', { speed: 0 });
    const statements = createStatementClient((await integration.connect(h.workspaceId)).transport, {
      warehouseId: defaultWarehouseId,
    });
    await eventually(async () => {
      await reconcileBilling(
        {
          store: integration.store,
          reader: createSystemTablesReader(statements),
          serverless: createServerlessBillingReader(statements),
          reviseCost: integration.reviseRunCost,
        },
        h.workspaceId,
        { waitingIntervalMs: 0, billedIntervalMs: 0 },
      );
      const rows = await integration.store.billingOfProjects([projectId]);
      if (rows.some((row) => row.billed_dbu_usd === null)) {
        await call('/emulator/admin/clock', { advance_ms: hourMs / 2 });
        return undefined;
      }
      return rows;
    }, 'every run billed');
    await h.server.services.recommendations.request(projectId, {
      actor: 'test',
      basedOnRunId: third.run.id,
      idempotencyKey: 'after-bills',
    });
    const billed = await eventually(async () => {
      const page = await h.server.services.recommendations.list(projectId, { limit: 20, offset: 0 });
      const latest = page.items.find((item) => item.requestedBy === 'test');
      return latest && latest.state !== 'PENDING' ? latest : undefined;
    }, 'the recommendation after the bills');
    const costs = await Promise.all(
      [first.run, second.run, third.run].map(
        async (run) => (await h.server.services.runs.get(projectId, run.id)).cost!.totalUsd,
      ),
    );
    const optimizedMedian = (costs[0]! + costs[1]!) / 2;
    // the same work billed at 0.7× the DBUs: about 30 % less
    expect(1 - costs[2]! / optimizedMedian).toBeGreaterThan(0.2);
    expect(billed.configuration).toEqual({ performance_target: 'STANDARD' });
    expect(billed.explanation).toMatch(/\$\d+\.\d\d saved per run in standard mode/);
    // the simulated clock runs again for the next test
    await call('/emulator/admin/clock', { speed: 3600 });
  }, 180_000);

  it('keeps performance-optimized mode where the added start-up would miss the SLA', async () => {
    const jobId = await createJob('Serverless tight', 'cpu-bound-ml');
    const projectId = await importServerless(jobId, { slaMinutes: 240, autoApply: true });
    const first = await runAndRecommend(jobId, projectId);
    const second = await runAndRecommend(jobId, projectId);
    const slowest = Math.max(
      ...[first.run, second.run].map((run) => ((run.endedAt ?? 0) - (run.startedAt ?? 0)) / 60_000),
    );
    // an SLA two minutes over the slowest run: standard mode's start-up (4 to 6 minutes) would miss it
    await h.server.services.projects.update(projectId, { settings: { slaMinutes: slowest + 2 } }, 'test');
    await h.server.services.recommendations.request(projectId, {
      actor: 'test',
      basedOnRunId: second.run.id,
      idempotencyKey: 'tight-sla',
    });
    const advice = await eventually(async () => {
      const page = await h.server.services.recommendations.list(projectId, { limit: 20, offset: 0 });
      const latest = page.items.find((item) => item.requestedBy === 'test');
      return latest && latest.state !== 'PENDING' ? latest : undefined;
    }, 'the advice under a tight SLA');

    expect(advice.configuration).toEqual({ performance_target: 'PERFORMANCE_OPTIMIZED' });
    expect(advice.decision?.action).toBe('keep');
    expect(advice.explanation).toMatch(/would meet the .*-minute SLA with P = 0\.\d\d only/);
    const job = await h.databricks.getJob(jobId);
    expect(job.settings.performance_target).toBeUndefined();
    expect((await h.server.services.applies.history(projectId)).length).toBe(1);
  }, 180_000);
});
