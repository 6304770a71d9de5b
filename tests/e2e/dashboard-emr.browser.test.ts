import path from 'node:path';
import {
  type EMRClient,
  ListInstanceGroupsCommand,
  RunJobFlowCommand,
  type RunJobFlowCommandInput,
} from '@aws-sdk/client-emr';
import type { RunningEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { RunningServer } from 'setpoint/server/start-server';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { eventually, insertRecommendation } from '../databricks/integration-harness.js';
import { type EmrFace, startEmrFace, startSetpointForEmr } from '../emr/support/emr-test-bench.js';
import { launchChromium, screenshotDir } from '../support/browser.js';
import type { S3TestServer } from '../support/s3-test-server.js';
import { settledRecommendation } from '../support/settled-recommendation.js';
import { describeFull } from '../support/tiers.js';

// The first recommendation of the process learns the shipped fleet prior (seconds on a busy machine).
vi.setConfig({ testTimeout: 400_000 });

const password = 'correct horse battery staple';
const usd = (value: number) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 2 }).format(
    value,
  );
const hour = 3_600_000;
/** What the person types into the form: none of it may come back into a page. */
const keys = { accessKeyId: 'AKIAEMRDASHBOARD42', secretAccessKey: 'emr-dashboard-secret-never-shown' };
const logStore = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

function nightly(date: string): RunJobFlowCommandInput {
  return {
    Name: `nightly-orders-${date}`,
    ReleaseLabel: 'emr-7.2.0',
    LogUri: 's3://emr-logs/logs/',
    Tags: [{ Key: 'setpoint:project-id', Value: 'orders' }],
    Configurations: [
      { Classification: 'spark-defaults', Properties: { 'spark.eventLog.dir': 's3a://spark-events/apps' } },
    ],
    Instances: {
      KeepJobFlowAliveWhenNoSteps: false,
      InstanceGroups: [
        { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
        { InstanceRole: 'CORE', InstanceType: 'r5.2xlarge', InstanceCount: 2 },
        { InstanceRole: 'TASK', Market: 'SPOT', InstanceType: 'r5.2xlarge', InstanceCount: 6 },
      ],
    },
    Steps: [
      {
        Name: 'orders-etl',
        HadoopJarStep: {
          Jar: 'command-runner.jar',
          Args: ['spark-submit', '--deploy-mode', 'cluster', 's3://jobs/join-heavy-etl.py'],
        },
      },
    ],
  };
}

/** The long-running cluster's task group: far more than its light hourly steps need. */
const reportingTaskCount = 22;

/** A shared long-running cluster sized once for a peak long gone: 22 spot task instances for light steps. */
const reporting: RunJobFlowCommandInput = {
  Name: 'shared-reporting',
  ReleaseLabel: 'emr-7.2.0',
  LogUri: 's3://emr-logs/logs/',
  Tags: [{ Key: 'setpoint:project-id', Value: 'reporting' }],
  Configurations: [
    { Classification: 'spark-defaults', Properties: { 'spark.eventLog.dir': 's3a://spark-events/apps' } },
  ],
  Instances: {
    KeepJobFlowAliveWhenNoSteps: true,
    InstanceGroups: [
      { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
      { InstanceRole: 'CORE', InstanceType: 'c5.xlarge', InstanceCount: 2 },
      { InstanceRole: 'TASK', Market: 'SPOT', InstanceType: 'c5.xlarge', InstanceCount: reportingTaskCount },
    ],
  },
  Steps: ['01', '02', '03', '04'].map((at) => ({
    Name: `hourly-report 2026-03-06T${at}:00`,
    HadoopJarStep: { Jar: 'command-runner.jar', Args: ['spark-submit', 's3://jobs/many-small-jobs.py'] },
  })),
};

/**
 * The EMR pages driven as a person uses them, against a Setpoint server and the emulator's EMR face
 * (its steps write real event logs to s3rver): connect an account, check it, discover and import a
 * workload, and read its project's steps, recommendation, history and exports.
 */
describeFull(
  'dashboard EMR pages against the emulator in Chromium',
  'Debian chromium (/usr/bin/chromium)',
  () => {
    let face: EmrFace;
    let s3Server: S3TestServer;
    let emulator: RunningEmulator;
    let server: RunningServer;
    let launcher: EMRClient;
    let browser: Browser;
    let context: BrowserContext;
    let reportingClusterId: string;

    beforeAll(async () => {
      face = await startEmrFace(5, keys);
      ({ s3Server, emulator, launcher } = face);
      for (const date of ['2026-03-02', '2026-03-03', '2026-03-04']) {
        await launcher.send(new RunJobFlowCommand(nightly(date)));
        emulator.context.clock.advance(8 * hour);
      }
      reportingClusterId = (await launcher.send(new RunJobFlowCommand(reporting))).JobFlowId as string;
      emulator.context.clock.advance(12 * hour);
      emulator.emr.catchUp();
      await emulator.emr.logsWritten();
      server = await startSetpointForEmr('emr-ui');
      await server.services.users.create('ada', password, 'admin');
      browser = await launchChromium();
      context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${server.url}/login`);
      await page.getByLabel('Username').fill('ada');
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/projects');
      await page.close();
    }, 120_000);

    afterAll(async () => {
      await context?.close();
      await browser?.close();
      await server?.stop();
      await face?.close();
    });

    const shot = (page: Page, name: string) =>
      page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true });

    /** Neither the typed secrets nor the whole key id are anywhere in the page. */
    const expectNoSecret = async (page: Page) => {
      const html = await page.content();
      expect(html).not.toContain(keys.secretAccessKey);
      expect(html).not.toContain(keys.accessKeyId);
    };

    it('connects an account, imports a workload, and shows its steps, recommendation, history and exports', async () => {
      const page = await context.newPage();
      await page.goto(`${server.url}/emr`);
      await page.getByText('No EMR accounts').waitFor();
      await page.getByRole('button', { name: 'Add account' }).click();
      const form = page.getByRole('form', { name: 'Add EMR account' });
      await form.getByLabel('Name', { exact: true }).fill('analytics prod');
      await form.getByLabel('Region', { exact: true }).fill('us-east-1');
      await form.getByLabel('Access key id', { exact: true }).fill(keys.accessKeyId);
      await form.getByLabel('Secret access key', { exact: true }).fill(keys.secretAccessKey);
      await form.getByText('Endpoints and log store').click();
      await form.getByLabel('EMR endpoint', { exact: true }).fill(emulator.url);
      await form.getByLabel('S3 endpoint', { exact: true }).fill(s3Server.endpoint);
      await form.getByLabel('Log store key id', { exact: true }).fill(logStore.accessKeyId);
      await form.getByLabel('Log store secret', { exact: true }).fill(logStore.secretAccessKey);
      await form.getByRole('button', { name: 'Add and check access' }).click();

      // Saving runs the access check: every permission collection and apply need is held in the emulator.
      const check = page.getByTestId('emr-access-check');
      await check.getByText('Setpoint can collect from this account.').waitFor();
      const lines = check.locator('li');
      expect(await lines.count()).toBeGreaterThanOrEqual(9);
      expect(await check.locator('li.check-fail').count()).toBe(0);
      await check.getByText('elasticmapreduce:ListInstances', { exact: true }).waitFor();
      await check.getByText('elasticmapreduce:PutManagedScalingPolicy', { exact: true }).waitFor();
      // The account shows how it signs in, never the secret: the key id's last four characters only.
      const row = page
        .getByRole('table', { name: 'EMR accounts' })
        .getByRole('row', { name: /analytics prod/ });
      await row.getByText('access keys · key …RD42').waitFor();
      await expectNoSecret(page);
      await shot(page, 'emr-account-checked');

      await row.getByRole('button', { name: 'Discover' }).click();
      const discovered = page.getByTestId('emr-discover');
      const workloads = discovered.getByRole('table', { name: 'EMR workloads' });
      await workloads.waitFor();
      const orders = workloads.getByRole('row', { name: /orders/ });
      expect(await orders.getByRole('cell').nth(2).textContent()).toBe('3');
      await orders.getByRole('checkbox', { name: 'Select orders' }).check();
      await discovered.getByLabel('Runtime SLA (minutes, optional)').fill('240');
      await discovered.getByRole('button', { name: 'Import 1 selected' }).click();
      const imported = discovered.getByTestId('emr-imported');
      await imported.getByText('(3 runs queued)').waitFor();
      const link = imported.getByRole('link', { name: 'orders' });
      const projectId = decodeURIComponent((await link.getAttribute('href'))?.split('/').at(-1) ?? '');
      expect(projectId).not.toBe('');
      // Discovery again links the workload to its project.
      await workloads
        .getByRole('row', { name: /orders/ })
        .getByRole('link', { name: 'imported' })
        .waitFor();
      await shot(page, 'emr-imported');

      const runs = await eventually(
        async () => {
          const page = await server.services.runs.list(projectId, { limit: 50, offset: 0 });
          return page.items.filter((run) => run.pipelineState === 'DONE').length >= 3
            ? page.items
            : undefined;
        },
        'the three imported steps to be collected and costed',
        300_000,
      );
      const newestRun = runs.reduce((newest, run) =>
        (run.startedAt ?? 0) > (newest.startedAt ?? 0) ? run : newest,
      );
      // the recommendation the page shows: the latest once every step's is made (an earlier step's may be
      // the latest for a moment, and the steps are collected in any order)
      const recommendation = await settledRecommendation(server.services.recommendations, projectId);

      await link.click();
      await page.waitForURL(`**/projects/${projectId}`);
      await page.getByRole('link', { name: 'EMR cluster' }).click();
      await page.waitForURL(`**/projects/${projectId}/emr`);
      const steps = page.getByTestId('emr-steps');
      await steps.waitFor();
      expect(await steps.locator('tbody tr').count()).toBe(3);
      for (const run of runs) {
        const [clusterId, stepId] = run.externalRunId.split(':');
        const stepRow = steps.getByRole('row', { name: new RegExp(`${clusterId}.*${stepId}`) });
        expect(await stepRow.getByRole('cell').nth(6).textContent()).toBe('SUCCESS');
        // A launched cluster bills its start-up, idle time and termination too: the step shows that part.
        const overhead = run.cost?.overhead;
        if (!overhead) throw new Error(`run ${run.id} was costed without its overhead`);
        expect(overhead.usd).toBeGreaterThan(0);
        expect(overhead.usd).toBeLessThan(run.cost?.totalUsd ?? 0);
        expect(await stepRow.getByRole('cell').nth(5).textContent()).toBe(
          `${usd(overhead.usd)} · ${(overhead.seconds / 60).toFixed(1)} min`,
        );
      }
      // The card says what the API's decision says; the node groups are the latest run's and the RunJobFlow's.
      const decision = recommendation.decision;
      if (!decision) throw new Error('the recommendation has no decision');
      const change = await page.getByTestId('decision-change').textContent();
      expect(change).toBe(
        decision.action === 'keep' ? 'No change: the job keeps its cluster' : decision.change,
      );
      const groups = page.getByTestId('emr-groups');
      expect(await groups.locator('tbody tr').count()).toBe(3);
      expect(
        await groups
          .getByRole('row', { name: /^primary/ })
          .getByRole('cell')
          .nth(1)
          .textContent(),
      ).toBe('m5.xlarge × 1 · ON_DEMAND');
      expect(await groups.getByRole('row', { name: /^task/ }).getByRole('cell').nth(1).textContent()).toBe(
        'r5.2xlarge × 6 · SPOT',
      );
      const recommendedTask = (
        recommendation.configuration as {
          Instances: {
            InstanceGroups: { InstanceRole: string; InstanceType: string; InstanceCount: number }[];
          };
        }
      ).Instances.InstanceGroups.find((group) => group.InstanceRole === 'TASK');
      if (recommendedTask)
        expect(
          await groups.getByRole('row', { name: /^task/ }).getByRole('cell').nth(2).textContent(),
        ).toContain(`${recommendedTask.InstanceType} × ${recommendedTask.InstanceCount}`);
      await shot(page, 'emr-project');

      // The run analysis splits the newest step's cost: the Spark application's part and the overhead.
      await page.getByRole('link', { name: 'Runs', exact: true }).click();
      await page.getByTestId('runs-table').waitFor();
      // DBUs are Databricks' unit: an EMR project's runs have no column of dashes for them
      expect(await page.getByTestId('runs-table').getByRole('columnheader').allTextContents()).not.toContain(
        'DBUs estimated / billed',
      );
      expect(await page.getByTestId('run-billing').count()).toBe(0);
      await page
        .getByTestId('runs-table')
        .locator(`tr[data-run-id="${newestRun.id}"]`)
        .getByRole('button')
        .click();
      const split = page.getByTestId('run-cost-split');
      await split.waitFor();
      const newestOverhead = newestRun.cost?.overhead;
      if (!newestOverhead || !newestRun.cost)
        throw new Error('the newest step was costed without its overhead');
      expect(await split.textContent()).toBe(
        `${usd(newestRun.cost.totalUsd - newestOverhead.usd)} Spark application + ${usd(newestOverhead.usd)} ` +
          `overhead (${(newestOverhead.seconds / 60).toFixed(1)} min outside the application)`,
      );
      await shot(page, 'emr-run-cost-split');
      // Its cost kind by kind: the EMR fee is a platform fee like any other, with its quantity and price.
      expect(await page.getByTestId('run-cost-components').textContent()).toMatch(
        /Platform fees: EMR fee, [a-z0-9.]+: [\d.]+ instance-hours? × \$[\d.]+ = \$\d/,
      );
      // The cost-per-run chart draws every costed step, each kind of its cost stacked.
      await page.getByRole('link', { name: 'Timeline', exact: true }).click();
      const costChart = page.getByTestId('cost-chart');
      await costChart.waitFor();
      expect(await costChart.getAttribute('data-points')).toBe(String(runs.filter((run) => run.cost).length));
      expect(await costChart.getAttribute('data-kinds')).toBe('compute platform_fee storage');
      await shot(page, 'emr-cost-per-run');
      await page.getByRole('link', { name: 'EMR cluster' }).click();
      await page.getByTestId('emr-steps').waitFor();

      // A transient workload has nothing Setpoint changed: the one history says so, nothing to roll back.
      await page.getByRole('link', { name: 'Recommendation', exact: true }).click();
      await page.getByTestId('nothing-applied').waitFor();
      expect(await page.getByRole('button', { name: 'Roll back', exact: true }).isDisabled()).toBe(true);
      await page.getByRole('link', { name: 'EMR cluster' }).click();
      await page.getByTestId('emr-steps').waitFor();

      // The next launch takes the recommendation from the exports.
      await page.getByRole('button', { name: 'RunJobFlow JSON' }).click();
      const exported = JSON.parse((await page.getByTestId('emr-export').textContent()) ?? '') as {
        recommendation: string;
        run_job_flow: unknown;
      };
      expect(exported.recommendation).toBe(recommendation.id);
      expect(exported.run_job_flow).toEqual(recommendation.configuration);
      await page.getByRole('button', { name: 'Terraform' }).click();
      await page
        .getByTestId('emr-export')
        .getByText(/resource "aws_emr_cluster" "orders"/)
        .waitFor();
      expect(await page.getByTestId('emr-export').textContent()).toMatch(/ignore_changes/);
      await expectNoSecret(page);
      await shot(page, 'emr-export');

      await page.close();
    });

    it('applies the recommendation to a long-running cluster and rolls it back', async () => {
      const taskGroup = async () =>
        (
          await launcher.send(new ListInstanceGroupsCommand({ ClusterId: reportingClusterId }))
        ).InstanceGroups?.find((group) => group.InstanceGroupType === 'TASK');
      expect((await taskGroup())?.RequestedInstanceCount).toBe(reportingTaskCount);

      const page = await context.newPage();
      await page.goto(`${server.url}/emr`);
      const row = page
        .getByRole('table', { name: 'EMR accounts' })
        .getByRole('row', { name: /analytics prod/ });
      await row.getByRole('button', { name: 'Discover' }).click();
      const discovered = page.getByTestId('emr-discover');
      const workload = discovered
        .getByRole('table', { name: 'EMR workloads' })
        .getByRole('row', { name: /reporting/ });
      expect(await workload.getByRole('cell').nth(3).textContent()).toBe(
        `long-running ${reportingClusterId}`,
      );
      await workload.getByRole('checkbox', { name: 'Select reporting' }).check();
      await discovered.getByLabel('Runtime SLA (minutes, optional)').fill('120');
      await discovered.getByRole('button', { name: 'Import 1 selected' }).click();
      const imported = discovered.getByTestId('emr-imported');
      await imported.getByText('(4 runs queued)').waitFor();
      const link = imported.getByRole('link', { name: 'reporting' });
      const projectId = decodeURIComponent((await link.getAttribute('href'))?.split('/').at(-1) ?? '');

      const runs = await eventually(
        async () => {
          const page = await server.services.runs.list(projectId, { limit: 50, offset: 0 });
          return page.items.filter((run) => run.pipelineState === 'DONE').length >= 4
            ? page.items
            : undefined;
        },
        'the four imported steps to be collected and costed',
        300_000,
      );
      expect(runs.length).toBeGreaterThanOrEqual(4);
      // every step's recommendation made (the steps are collected in any order, so the last one made may
      // come from an earlier step)
      await settledRecommendation(server.services.recommendations, projectId);
      // The optimizer's choice for this cluster hangs on a few percent of predicted cost (it keeps or trims
      // the task group from one set of steps to the next): the page's apply and rollback are tested on a
      // resize recommended as the optimizer would, eight spot task instances of the same type.
      const recommendedTask = {
        InstanceRole: 'TASK',
        Market: 'SPOT',
        InstanceType: 'c5.xlarge',
        InstanceCount: 8,
      };
      await insertRecommendation(
        server,
        projectId,
        'rec_fewer_task_nodes',
        {
          Instances: {
            InstanceGroups: [
              { InstanceRole: 'MASTER', Market: 'ON_DEMAND', InstanceType: 'm5.xlarge', InstanceCount: 1 },
              { InstanceRole: 'CORE', Market: 'ON_DEMAND', InstanceType: 'c5.xlarge', InstanceCount: 2 },
              recommendedTask,
            ],
          },
        },
        'eight spot task instances are enough for these light hourly steps',
      );

      await link.click();
      await page.waitForURL(`**/projects/${projectId}`);
      await page.getByRole('link', { name: 'EMR cluster' }).click();
      await page.waitForURL(`**/projects/${projectId}/emr`);
      const groups = page.getByTestId('emr-groups');
      await groups.waitFor();
      const taskRow = groups.getByRole('row', { name: /^task/ });
      expect(await taskRow.getByRole('cell').nth(1).textContent()).toBe(
        `c5.xlarge × ${reportingTaskCount} · SPOT`,
      );
      expect(await taskRow.getByRole('cell').nth(2).textContent()).toContain(
        `${recommendedTask.InstanceType} × ${recommendedTask.InstanceCount}`,
      );

      // Apply, from the Recommendation tab as on every platform: the emulated cluster is really resized,
      // and the one history says what changed.
      await page.getByRole('link', { name: 'Recommendation', exact: true }).click();
      await page.getByTestId('nothing-applied').waitFor();
      await page.getByRole('button', { name: 'Apply', exact: true }).click();
      const applyDialog = page.getByRole('dialog', { name: 'Apply this recommendation?' });
      await applyDialog.getByRole('button', { name: 'Apply to the job' }).click();
      await applyDialog.waitFor({ state: 'hidden' });
      await eventually(
        async () =>
          (await taskGroup())?.RequestedInstanceCount === recommendedTask.InstanceCount ? true : undefined,
        'the task group to be resized',
      );
      const groupId = (await taskGroup())?.Id as string;
      const resized = `${groupId}: ${reportingTaskCount} → ${recommendedTask.InstanceCount} instances`;
      await page.reload();
      const applied = page.getByRole('table', { name: 'Applied configurations' });
      const appliedRow = applied.getByRole('row', { name: /^.*Applied/ });
      await appliedRow.getByText(resized).waitFor();
      expect(await appliedRow.getByRole('cell').nth(2).textContent()).toBe('user:ada');
      expect(await appliedRow.getByRole('cell').nth(3).textContent()).toContain(reportingClusterId);
      await shot(page, 'emr-applied');

      // Rollback: the cluster has its earlier size again, and the history shows both changes.
      await page.getByRole('button', { name: 'Roll back', exact: true }).click();
      const rollback = page.getByRole('dialog', { name: "Roll back the job's cluster?" });
      await rollback.getByRole('button', { name: 'Roll back', exact: true }).click();
      await rollback.waitFor({ state: 'hidden' });
      expect((await taskGroup())?.RequestedInstanceCount).toBe(reportingTaskCount);
      const rolledBack = applied.getByRole('row', { name: /Rolled back/ });
      await rolledBack
        .getByText(`${groupId}: ${recommendedTask.InstanceCount} → ${reportingTaskCount} instances`)
        .waitFor();
      expect(await applied.locator('tbody tr').count()).toBe(2);
      await shot(page, 'emr-rolled-back');
      await page.close();
    });
  },
);
