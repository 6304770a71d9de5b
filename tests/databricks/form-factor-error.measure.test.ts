import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formFactorAdviceSchema } from '@setpoint/api-contract';
import { quantile } from '@setpoint/foundation/statistics';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { describe, expect, it } from 'vitest';
import { type Harness, importJob, jobIdByName } from './integration-harness.js';
import { emulatorCalls, runBilled, startServerlessHarness } from './serverless-support.js';

/**
 * The form-factor estimate error on every Job Bank job that can move (each single-task job-cluster job): each
 * runs on its job cluster, moves to serverless compute as a team would, and runs there; then each job's estimate
 * from its cluster runs and the other moved jobs' evidence (leave-one-job-out: the job's own move is never in
 * its evidence) is checked against what its serverless runs were billed. A measurement, not a test: it runs only
 * with SETPOINT_MEASURE_FORM_FACTOR=1 (`docs/benchmarks.md`, "Form-factor estimate error"), writing its table to
 * SETPOINT_MEASURE_OUT.
 */
const enabled = process.env.SETPOINT_MEASURE_FORM_FACTOR === '1';
const runsPerForm = Number(process.env.SETPOINT_MEASURE_RUNS ?? 2);
const hourMs = 3_600_000;
/** The Job Bank's single-task job-cluster jobs: each can move to serverless compute. */
const movable = [
  'Join-heavy ETL',
  'Daily aggregation',
  'Skewed join',
  'Spill-heavy sort',
  'CPU-bound ML scoring',
  'Many small jobs',
  'IO-bound scan',
  'Photon-friendly SQL',
  'Growing events',
];

const median = (values: number[]) => quantile(values, 0.5);

(enabled ? describe : describe.skip)('form-factor estimate error over the movable Job Bank jobs', () => {
  it('measures each job’s estimate against its billed serverless runs', async () => {
    const h: Harness = await startServerlessHarness(47);
    const { call } = emulatorCalls(() => h);
    const integration = databricksIntegrationOf(h.server.services);
    const key = await h.server.services.apiKeys.create('form-factor-measure', 'test');
    const { accessToken } = await h.server.services.apiKeys.exchange(key.id, key.secret);
    const advice = async (projectId: string) => {
      const response = await h.server.app.inject({
        method: 'GET',
        url: `/api/v1/projects/${projectId}/form-factor`,
        headers: { authorization: `Bearer ${accessToken}` },
      });
      return formFactorAdviceSchema.parse(response.json());
    };
    const dbusOf = (cost: { components: Array<{ billed_by: string; unit: string; quantity: number }> }) =>
      cost.components
        .filter((c) => c.billed_by === 'platform' && c.unit === 'DBU')
        .reduce((sum, c) => sum + c.quantity, 0);

    const jobs: Array<{
      name: string;
      classicId: string;
      clusterUsd: number;
      clusterDbus: number;
      taskHours: number;
      serverlessUsd: number;
      serverlessDbus: number;
    }> = [];
    try {
      for (const name of movable) {
        const jobId = await jobIdByName(h.databricks, name);
        const { projectId: classicId } = await importJob(h, jobId, { slaMinutes: 600 });
        const clusterRuns = [];
        for (let i = 0; i < runsPerForm; i += 1) clusterRuns.push(await runBilled(h, classicId, jobId));
        const taskHours: number[] = [];
        for (const run of clusterRuns) {
          const profile = await h.server.services.runs.profile(classicId, run.id);
          taskHours.push((profile?.totals.executorRunTimeMs ?? 0) / hourMs);
        }
        // the move, as a team makes it: detached from Setpoint, its task in an environment, no cluster
        await integration.onboarding.detach(h.workspaceId, jobId, 'measure');
        const job = await h.databricks.getJob(jobId);
        const task = job.settings.tasks![0]!;
        await call('/api/2.2/jobs/update', {
          job_id: Number(jobId),
          new_settings: {
            environments: [{ environment_key: 'default', spec: { client: '2' } }],
            tasks: [
              {
                task_key: task.task_key,
                environment_key: 'default',
                spark_python_task: task.spark_python_task,
              },
            ],
            job_clusters: [],
          },
        });
        const { projectId: serverlessId } = await importJob(h, jobId, { slaMinutes: 600 });
        const serverlessRuns = [];
        for (let i = 0; i < runsPerForm; i += 1) serverlessRuns.push(await runBilled(h, serverlessId, jobId));
        jobs.push({
          name,
          classicId,
          clusterUsd: median(clusterRuns.map((run) => run.cost!.totalUsd)),
          clusterDbus: median(clusterRuns.map((run) => dbusOf(run.cost!))),
          taskHours: median(taskHours),
          serverlessUsd: median(serverlessRuns.map((run) => run.cost!.totalUsd)),
          serverlessDbus: median(serverlessRuns.map((run) => dbusOf(run.cost!))),
        });
      }
      // every job has moved: each job's advice checks its estimate from the others' evidence against its bills
      const rows = [];
      for (const job of jobs) {
        const checked = await advice(job.classicId);
        const others = jobs.filter((other) => other !== job);
        const usdPerDbu = job.serverlessUsd / job.serverlessDbus;
        // the DBU-ratio basis: the job's cluster DBUs × the other moved jobs' serverless ÷ cluster DBUs
        const dbuRatio = median(others.map((other) => other.serverlessDbus / other.clusterDbus));
        const dbuRatioEstimate = job.clusterDbus * dbuRatio * usdPerDbu;
        // the task-time basis: the job's own task time × the other moved jobs' serverless DBUs per task-hour
        const perTaskHour = median(others.map((other) => other.serverlessDbus / other.taskHours));
        const taskTimeEstimate = job.taskHours * perTaskHour * usdPerDbu;
        rows.push({
          job: job.name,
          measured_serverless_usd: job.serverlessUsd,
          cluster_usd: job.clusterUsd,
          dbu_ratio_estimate_usd: dbuRatioEstimate,
          dbu_ratio_error: Math.abs(dbuRatioEstimate - job.serverlessUsd) / job.serverlessUsd,
          product_estimate_usd: checked.check?.estimated_usd ?? null,
          product_error: checked.check?.error ?? null,
          task_time_estimate_usd: taskTimeEstimate,
          task_time_error: Math.abs(taskTimeEstimate - job.serverlessUsd) / job.serverlessUsd,
          own_dbu_ratio: job.serverlessDbus / job.clusterDbus,
          own_dbus_per_task_hour: job.serverlessDbus / job.taskHours,
        });
      }
      const summary = {
        runs_per_form: runsPerForm,
        jobs: rows,
        median_dbu_ratio_error: median(rows.map((row) => row.dbu_ratio_error)),
        median_task_time_error: median(rows.map((row) => row.task_time_error)),
        /** The product's own check (`GET …/form-factor`'s `check.error`): the basis the product uses. */
        median_product_error: median(
          rows.flatMap((row) => (row.product_error === null ? [] : [row.product_error])),
        ),
      };
      const out = process.env.SETPOINT_MEASURE_OUT;
      if (out) {
        mkdirSync(path.dirname(out), { recursive: true });
        writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
      }
      process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      expect(rows.every((row) => row.product_error !== null)).toBe(true);
    } finally {
      await h.close();
    }
  }, 3_600_000);
});
