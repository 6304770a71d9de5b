import { recommendationListSchema, runDetailSchema, runListSchema } from '@setpoint/api-contract';
import { discoverSchema } from '@setpoint/api-contract/databricks';
import { defaultWarehouseId } from '@setpoint/databricks-emulator/server/statements-routes';
import type { Run } from 'setpoint/platforms/databricks/api/schema';
import { createStatementClient } from 'setpoint/platforms/databricks/api/statements';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { projectTagKey } from 'setpoint/platforms/databricks/jobs/onboarding';
import { createServerlessBillingReader } from 'setpoint/platforms/databricks/serverless/serverless-billing-reader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteCliEnv, runCli } from '../support/run-cli.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { eventually, type Harness, processedRun } from './integration-harness.js';
import {
  emulatorCalls,
  reconcileNow,
  serverlessJobSettings,
  startServerlessHarness,
} from './serverless-support.js';

const hourMs = 3_600_000;
/** The emulator's list price of its serverless jobs SKU on AWS (us-west-2). */
const serverlessUsdPerDbu = 0.35;

interface EmulatorTruth {
  serverless_tasks: Array<{
    performance_target: string;
    startup_ms: number;
    execution_ms: number;
    dbus: number;
    node_seconds: number;
  }>;
}

describe('serverless jobs: discovered, imported, costed from system.billing.usage', () => {
  let h: Harness;
  const { call, clock, createJob, runNow } = emulatorCalls(() => h);
  const finishedRun = (runId: string) =>
    eventually(async () => {
      const run = await h.databricks.getRun(runId);
      return run.state.life_cycle_state === 'TERMINATED' ? run : undefined;
    }, `run ${runId} to finish`);
  const serverless = () =>
    databricksIntegrationOf(h.server.services)
      .connect(h.workspaceId)
      .then(({ transport }) =>
        createServerlessBillingReader(createStatementClient(transport, { warehouseId: defaultWarehouseId })),
      );
  let jobId = '';

  beforeAll(async () => {
    h = await startServerlessHarness(37);
    // a job that runs a few minutes even on autoscaled serverless compute: the SLA test needs a run over a minute
    jobId = String(
      (await call('/api/2.2/jobs/create', serverlessJobSettings('Serverless scoring', 'cpu-bound-ml')))
        .job_id,
    );
  });
  afterAll(async () => h?.close());

  it('the emulator runs serverless tasks in both performance modes as documented and bills them', async () => {
    const standard = await finishedRun(await runNow(jobId, 'STANDARD'));
    const optimized = await finishedRun(await runNow(jobId));
    const task = (run: Run) => run.tasks![0]!;

    expect(standard.effective_performance_target).toBe('STANDARD');
    expect(task(optimized).effective_performance_target).toBe('PERFORMANCE_OPTIMIZED');
    // no cluster: serverless compute is Databricks'
    expect(task(standard).cluster_instance).toBeUndefined();
    // standard starts in 4 to 6 minutes, performance-optimized in under one
    expect(task(standard).setup_duration).toBeGreaterThanOrEqual(4 * 60_000);
    expect(task(standard).setup_duration).toBeLessThanOrEqual(6 * 60_000);
    expect(task(optimized).setup_duration).toBeLessThan(60_000);

    // every hourly record of both runs is visible once the billing lag has passed the hour each run ended in;
    // reading at the first record could see a long run's bill in part
    await clock({ advance_ms: 3 * hourMs }); // the harness bills an hour after each hour
    const reader = await serverless();
    const [standardBill, optimizedBill] = await Promise.all(
      [standard, optimized].map((run) =>
        eventually(async () => {
          const bill = await reader.runBill(String(run.run_id));
          return bill.records > 0 ? bill : undefined;
        }, `the bill of run ${run.run_id}`),
      ),
    );
    expect(standardBill?.performanceTarget).toBe('STANDARD');
    expect(optimizedBill?.performanceTarget).toBe('PERFORMANCE_OPTIMIZED');
    // the same SKU and price per DBU in both modes
    expect(standardBill!.usd / standardBill!.dbus).toBeCloseTo(serverlessUsdPerDbu, 9);
    expect(optimizedBill!.usd / optimizedBill!.dbus).toBeCloseTo(serverlessUsdPerDbu, 9);
    // the bill is the simulator's own DBUs, summed over the several records of each hour
    const truthOf = async (run: Run) =>
      ((await call(`/emulator/admin/runs/${run.run_id}`)) as unknown as EmulatorTruth).serverless_tasks[0]!;
    const [standardTruth, optimizedTruth] = [await truthOf(standard), await truthOf(optimized)];
    expect(standardBill!.dbus).toBeCloseTo(standardTruth.dbus, 9);
    expect(optimizedBill!.dbus).toBeCloseTo(optimizedTruth.dbus, 9);
    // fewer DBUs for each node-second the autoscaled compute ran in standard mode, and fewer in all
    const perNodeSecond = (bill: typeof standardBill, truth: typeof standardTruth) =>
      bill!.dbus / truth.node_seconds;
    expect(
      perNodeSecond(standardBill, standardTruth) / perNodeSecond(optimizedBill, optimizedTruth),
    ).toBeCloseTo(0.7, 6);
    expect(standardBill!.dbus).toBeLessThan(optimizedBill!.dbus);
    expect(standardBill!.records).toBeGreaterThanOrEqual(2);
  });

  it('Discover shows what a serverless job was billed, and never $0 for one without a bill', async () => {
    const neverRun = String(
      (
        await call(
          '/api/2.2/jobs/create',
          serverlessJobSettings('Serverless never run', 'cpu-bound-ml', 'STANDARD'),
        )
      ).job_id,
    );
    const result = await databricksIntegrationOf(h.server.services).discover(h.workspaceId, 30);
    const billed = result.jobs.find((job) => job.jobId === jobId);
    const unbilled = result.jobs.find((job) => job.jobId === neverRun);

    expect(billed).toMatchObject({ compute: 'serverless', runsInWindow: 2, costNote: null });
    expect(billed?.monthlyCostUsd).toBeGreaterThan(0);
    expect(unbilled?.compute).toBe('serverless');
    expect(unbilled?.monthlyCostUsd).toBeNull();
    expect(unbilled?.costNote).toMatch(/no serverless billing records/);

    // the API says the same: the cost or the reason, and the serverless jobs' finding
    const key = await h.server.services.apiKeys.create('discover-test', 'test');
    const { accessToken } = await h.server.services.apiKeys.exchange(key.id, key.secret);
    const response = await h.server.app.inject({
      method: 'GET',
      url: `/api/v1/workspaces/${h.workspaceId}/discover?window_days=30`,
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(response.statusCode).toBe(200);
    const wire = discoverSchema.parse(response.json());
    expect(wire.jobs.find((job) => job.job_id === jobId)?.monthly_cost_usd).toBeCloseTo(
      billed!.monthlyCostUsd!,
      6,
    );
    expect(wire.jobs.find((job) => job.job_id === neverRun)).toMatchObject({
      monthly_cost_usd: null,
      cost_note: unbilled?.costNote,
    });
    expect(wire.findings.find((finding) => finding.id === 'serverless')?.job_ids).toEqual(
      expect.arrayContaining([jobId, neverRun]),
    );
  });

  it('imports the job as a project without a cluster: runs costed at once, replaced by the bill, SLA alerts', async () => {
    const receiver = await startWebhookReceiver();
    const alerts = h.server.services.alerts;
    const destination = await alerts.createDestination(
      {
        kind: 'webhook',
        name: 'data team',
        url: receiver.url,
        signing_secret: 'whsec-serverless-0123456789',
        max_per_hour: 30,
      },
      'test',
    );
    await alerts.createRule(
      {
        project_id: null,
        event: 'sla_missed',
        destination_id: destination.id,
        params: { threshold_pct: 20, window_runs: 5, at_risk_fraction: 0.9 },
        enabled: true,
      },
      'test',
    );
    const integration = databricksIntegrationOf(h.server.services);
    const before = await h.databricks.getJob(jobId);
    const [imported] = await integration.onboarding.importJobs(
      h.workspaceId,
      { jobIds: [jobId], settings: { slaMinutes: 1 } },
      'test',
    );
    expect(imported?.skipped).toEqual([]);
    expect(imported?.projects).toHaveLength(1);
    const projectId = imported!.projects[0]!.id;
    expect(imported?.projects[0]?.clusterKey).toBe('serverless');
    // the history starts with the job's performance mode as imported; no cluster is written
    expect((await h.server.services.applies.history(projectId)).map((entry) => entry.configuration)).toEqual([
      { performance_target: 'PERFORMANCE_OPTIMIZED' },
    ]);
    const after = await h.databricks.getJob(jobId);
    expect(after.settings.tags?.[projectTagKey]).toBe(projectId);
    expect(after.settings.tasks).toEqual(before.settings.tasks);

    const databricksRunId = await runNow(jobId);
    const processed = await processedRun(h, projectId, databricksRunId);
    await clock({ speed: 0 });
    const detail = await h.server.services.runs.get(projectId, processed.id);
    expect(detail.status).toBe('SUCCESS');
    // the runtime counts the start-up: it is what the performance mode changes
    const truth = (await call(`/emulator/admin/runs/${databricksRunId}`)) as unknown as EmulatorTruth;
    const [simulated] = truth.serverless_tasks;
    expect((detail.endedAt! - detail.startedAt!) / 1000).toBeCloseTo(
      (simulated!.startup_ms + simulated!.execution_ms) / 1000,
      0,
    );
    // estimated at once from the job's two billed runs, as one typed component: compute billed in DBUs
    expect(detail.cost?.totalUsd).toBeGreaterThan(0);
    expect(detail.cost?.components).toEqual([
      expect.objectContaining({
        kind: 'compute',
        fee: null,
        platform: 'databricks',
        billed_by: 'platform',
        unit: 'DBU',
        estimated_usd: null,
        description: 'Serverless jobs compute, performance optimized',
      }),
    ]);
    const recommendation = await eventually(async () => {
      const page = await h.server.services.recommendations.list(projectId, { limit: 5, offset: 0 });
      return page.items.find((item) => item.basedOnRunId === processed.id && item.state !== 'PENDING');
    }, 'the recommendation of the serverless run');
    expect(recommendation.state, recommendation.error ?? '').toBe('SUCCESS');
    expect(recommendation.configuration).toEqual({ performance_target: 'PERFORMANCE_OPTIMIZED' });
    // one run only: no performance-mode advice yet, the job stays as it is
    expect(recommendation.explanation).toMatch(/stays performance optimized: two successful runs are needed/);
    expect((await h.server.services.projects.get(projectId)).phase).toBe('MONITORING');

    // the bill arrives an hour after the hour the run ended in, and replaces the estimate
    const billed = await eventually(async () => {
      await reconcileNow(h);
      const [row] = await integration.store.billingOfRuns([processed.id]);
      if (row?.billed_dbu_usd === null) await clock({ advance_ms: hourMs / 2 });
      return row?.billed_dbu_usd === null ? undefined : row;
    }, 'the bill of the serverless run');
    expect(billed.performance_target).toBe('PERFORMANCE_OPTIMIZED');
    expect(billed.billed_dbus).toBeCloseTo(simulated!.dbus, 9);
    const revised = await h.server.services.runs.get(projectId, processed.id);
    const [component] = revised.cost?.components ?? [];
    expect(component?.usd).toBeCloseTo(simulated!.dbus * serverlessUsdPerDbu, 9);
    expect(component?.estimated_usd).toBeCloseTo(detail.cost!.totalUsd, 9);
    expect(revised.cost?.totalUsd).toBeCloseTo(component!.usd, 9);

    // the Projects table and the SLA alert, as for any project
    const key = await h.server.services.apiKeys.create('serverless-test', 'test');
    const { accessToken } = await h.server.services.apiKeys.exchange(key.id, key.secret);
    const list = await h.server.app.inject({
      method: 'GET',
      url: '/api/v1/projects?limit=100',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    const row = (
      list.json().items as Array<{ id: string; summary?: { runs: number; cost_per_run_usd: number | null } }>
    ).find((item) => item.id === projectId);
    expect(row?.summary?.runs).toBe(1);
    expect(row?.summary?.cost_per_run_usd).toBeCloseTo(revised.cost!.totalUsd, 6);
    expect((detail.endedAt! - detail.startedAt!) / 60_000).toBeGreaterThan(1);
    await alerts.evaluate();
    const sent = await eventually(async () => {
      const page = await alerts.notifications({ limit: 10, offset: 0, projectId });
      return page.rows.find((entry) => entry.event === 'sla_missed' && entry.status === 'SENT');
    }, 'the SLA-missed notification');
    expect(sent.title).toMatch(/over its 1 min SLA/);
    expect(receiver.received.map((body) => JSON.parse(body).event)).toContain('sla_missed');
    receiver.close();
  }, 180_000);

  it('a job\'s first run, before any bill: "cost pending" with the reason in the API, CLI and Discover, never $0, until its bill lands', async () => {
    const integration = databricksIntegrationOf(h.server.services);
    const newJob = await createJob(serverlessJobSettings('Serverless first run', 'cpu-bound-ml'));
    const [imported] = await integration.onboarding.importJobs(h.workspaceId, { jobIds: [newJob] }, 'test');
    const projectId = imported!.projects[0]!.id;
    await clock({ speed: 3600 });
    const databricksRunId = await runNow(newJob);
    // stop the emulated clock as the run ends: its bill (an hour after) cannot land before Setpoint costs it
    await finishedRun(databricksRunId);
    await clock({ speed: 0 });
    const processed = await processedRun(h, projectId, databricksRunId);

    const key = await h.server.services.apiKeys.create('pending-cost-test', 'test');
    const { accessToken } = await h.server.services.apiKeys.exchange(key.id, key.secret);
    const get = async (url: string) => {
      const response = await h.server.app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${accessToken}` },
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as unknown;
    };
    const runUrl = `/api/v1/projects/${projectId}/runs/${processed.id}`;
    const pendingRun = runDetailSchema.parse(await get(runUrl));
    expect(pendingRun.pipeline_state).toBe('DONE');
    expect(pendingRun.cost).toBeNull();
    expect(pendingRun.cost_pending).toEqual({
      state: 'billing_not_yet_available',
      message: 'cost pending: billing not yet available',
      reason: expect.stringMatching(
        /system\.billing\.usage hours after a run.*no billed run to estimate from/,
      ),
    });
    const listed = runListSchema.parse(await get(`/api/v1/projects/${projectId}/runs`));
    expect(listed.items.map((run) => [run.cost, run.cost_pending?.state])).toEqual([
      [null, 'billing_not_yet_available'],
    ]);
    // the Projects table counts no $0 for it either
    const projects = (await get('/api/v1/projects?limit=100')) as {
      items: Array<{ id: string; summary?: { cost_per_run_usd: number | null } }>;
    };
    expect(
      projects.items.find((item) => item.id === projectId)?.summary?.cost_per_run_usd ?? null,
    ).toBeNull();

    const cli = (args: string[]) => runCli(args, { env: remoteCliEnv(h.server.url, key) });
    const shown = await cli(['runs', 'get', projectId, processed.id]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/cost\s+cost pending: billing not yet available: Databricks writes/);
    expect(shown.stdout).not.toMatch(/\$0\.00/);
    const table = await cli(['runs', 'list', projectId]);
    expect(table.stdout).toMatch(/pending/);
    expect(table.stdout).toMatch(/cost pending: billing not yet available for 1 run: /);

    // the project's first recommendation reads only this pending run: its cost is not known, never $0
    const firstRecommendation = await eventually(async () => {
      const page = recommendationListSchema.parse(await get(`/api/v1/projects/${projectId}/recommendations`));
      return page.items.find((rec) => rec.state === 'SUCCESS');
    }, 'the first recommendation');
    expect(firstRecommendation.predicted?.runtime_minutes.mid).toBeGreaterThan(0);
    expect(firstRecommendation.predicted?.cost_usd).toBeNull();
    expect(firstRecommendation.predicted?.cost_note).toBe('cost not yet known: billing pending');
    const shownRecommendation = await cli(['recommendations', 'get', projectId, firstRecommendation.id]);
    expect(shownRecommendation.code, shownRecommendation.stderr).toBe(0);
    expect(shownRecommendation.stdout).toMatch(/cost\s+cost not yet known: billing pending/);
    expect(shownRecommendation.stdout).not.toMatch(/\$0\.00/);
    const recommendationTable = await cli(['recommendations', 'list', projectId]);
    expect(recommendationTable.stdout).toMatch(/not yet known/);
    expect(recommendationTable.stdout).not.toMatch(/\$0\.00/);

    const discovered = (await integration.discover(h.workspaceId, 30)).jobs.find(
      (job) => job.jobId === newJob,
    );
    expect(discovered?.monthlyCostUsd).toBeNull();
    expect(discovered?.costNote).toMatch(
      /^cost pending: billing not yet available: no serverless billing records/,
    );

    // the bill lands: the cost fills in, as billed (no estimate came before it)
    await eventually(async () => {
      await reconcileNow(h);
      const [row] = await integration.store.billingOfRuns([processed.id]);
      if (row?.billed_dbu_usd === null) await clock({ advance_ms: hourMs / 2 });
      return row?.billed_dbu_usd === null ? undefined : row;
    }, 'the bill of the first run');
    const truth = (await call(`/emulator/admin/runs/${databricksRunId}`)) as unknown as EmulatorTruth;
    const billedRun = runDetailSchema.parse(await get(runUrl));
    expect(billedRun.cost_pending).toBeNull();
    expect(billedRun.cost?.total_usd).toBeCloseTo(truth.serverless_tasks[0]!.dbus * serverlessUsdPerDbu, 9);
    expect(billedRun.cost?.components).toEqual([
      expect.objectContaining({ kind: 'compute', unit: 'DBU', estimated_usd: null }),
    ]);
    expect(billedRun.cost?.components[0]?.quantity).toBeCloseTo(truth.serverless_tasks[0]!.dbus, 9);
    const after = await cli(['runs', 'get', projectId, processed.id]);
    expect(after.stdout).not.toMatch(/pending/);
    expect(after.stdout).toMatch(/cost\s+\$\d+\.\d\d/);
    const rediscovered = (await integration.discover(h.workspaceId, 30)).jobs.find(
      (job) => job.jobId === newJob,
    );
    expect(rediscovered?.costNote).toBeNull();
    expect(rediscovered?.monthlyCostUsd).toBeGreaterThan(0);
  }, 180_000);
});
