import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type Harness, processedRun } from './integration-harness.js';
import {
  emulatorCalls,
  reconcileNow,
  serverlessJobSettings,
  startServerlessHarness,
} from './serverless-support.js';

const hourMs = 3_600_000;

describe('serverless performance-mode advice through the service', () => {
  let h: Harness;
  const { call, createJob: create, runNow } = emulatorCalls(() => h);
  const createJob = (name: string, workload: string) => create(serverlessJobSettings(name, workload));
  /** The recommendation the test asked for itself (after changing the SLA, or once the bills arrived). */
  const requested = async (projectId: string, basedOnRunId: string, idempotencyKey: string) => {
    await h.server.services.recommendations.request(projectId, {
      actor: 'test',
      basedOnRunId,
      idempotencyKey,
    });
    return eventually(async () => {
      const page = await h.server.services.recommendations.list(projectId, { limit: 20, offset: 0 });
      const latest = page.items.find((item) => item.requestedBy === 'test');
      return latest && latest.state !== 'PENDING' ? latest : undefined;
    }, `the recommendation ${idempotencyKey}`);
  };
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
    h = await startServerlessHarness(38);
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
    await eventually(async () => {
      await reconcileNow(h);
      const rows = await integration.store.billingOfProjects([projectId]);
      if (rows.some((row) => row.billed_dbu_usd === null)) {
        await call('/emulator/admin/clock', { advance_ms: hourMs / 2 });
        return undefined;
      }
      return rows;
    }, 'every run billed');
    const billed = await requested(projectId, third.run.id, 'after-bills');
    const costs = await Promise.all(
      [first.run, second.run, third.run].map(
        async (run) => (await h.server.services.runs.get(projectId, run.id)).cost!.totalUsd,
      ),
    );
    const optimizedMedian = (costs[0]! + costs[1]!) / 2;
    // standard mode bills 0.7× the DBUs per node-second and adds workers more slowly: well over 20 % less
    expect(1 - costs[2]! / optimizedMedian).toBeGreaterThan(0.2);
    expect(billed.configuration).toEqual({ performance_target: 'STANDARD' });
    expect(billed.explanation).toMatch(/\$\d+\.\d\d saved per run in standard mode/);
    // the simulated clock runs again for the next test
    await call('/emulator/admin/clock', { speed: 3600 });
  }, 180_000);

  it('keeps performance-optimized mode where the added start-up would miss the SLA', async () => {
    const jobId = await createJob('Serverless tight', 'cpu-bound-ml');
    // an SLA no mode meets until the runs say how long the job takes: nothing is tried meanwhile
    const projectId = await importServerless(jobId, { slaMinutes: 1, autoApply: true });
    const first = await runAndRecommend(jobId, projectId);
    const second = await runAndRecommend(jobId, projectId);
    const slowest = Math.max(
      ...[first.run, second.run].map((run) => ((run.endedAt ?? 0) - (run.startedAt ?? 0)) / 60_000),
    );
    // an SLA two minutes over the slowest run: standard mode's start-up (4 to 6 minutes) would miss it
    await h.server.services.projects.update(projectId, { settings: { slaMinutes: slowest + 2 } }, 'test');
    const advice = await requested(projectId, second.run.id, 'tight-sla');

    expect(advice.configuration).toEqual({ performance_target: 'PERFORMANCE_OPTIMIZED' });
    expect(advice.decision?.action).toBe('keep');
    expect(advice.explanation).toMatch(/would meet the .*-minute SLA with P = 0\.\d\d only/);
    const job = await h.databricks.getJob(jobId);
    expect(job.settings.performance_target).toBeUndefined();
    expect((await h.server.services.applies.history(projectId)).length).toBe(1);
  }, 180_000);
});
