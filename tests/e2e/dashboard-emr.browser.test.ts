import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EMRClient, RunJobFlowCommand, type RunJobFlowCommandInput } from '@aws-sdk/client-emr';
import { type RunningEmulator, startEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { loadConfig } from 'setpoint/config/load-config';
import { type RunningServer, startServer } from 'setpoint/server/start-server';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { eventually } from '../databricks/integration-harness.js';
import { launchChromium, screenshotDir } from '../support/browser.js';
import { type S3TestServer, startS3TestServer } from '../support/s3-test-server.js';
import { describeFull } from '../support/tiers.js';

// The first recommendation of the process learns the shipped fleet prior (seconds on a busy machine).
vi.setConfig({ testTimeout: 400_000 });

const password = 'correct horse battery staple';
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

/**
 * The EMR pages driven as a person uses them, against a Setpoint server and the emulator's EMR face
 * (its steps write real event logs to s3rver): connect an account, check it, discover and import a
 * workload, and read its project's steps, recommendation, history and exports.
 */
describeFull(
  'dashboard EMR pages against the emulator in Chromium',
  'Debian chromium (/usr/bin/chromium)',
  () => {
    let s3Server: S3TestServer;
    let emulator: RunningEmulator;
    let server: RunningServer;
    let launcher: EMRClient;
    let browser: Browser;
    let context: BrowserContext;

    beforeAll(async () => {
      s3Server = await startS3TestServer(['emr-logs', 'spark-events']);
      emulator = await startEmulator({
        port: 0,
        clockSpeed: 0,
        seed: 5,
        preloadJobs: false,
        s3LogDelivery: { endpoint: s3Server.endpoint, credentials: s3Server.credentials },
        emr: { region: 'us-east-1' },
      });
      launcher = new EMRClient({ endpoint: emulator.url, region: 'us-east-1', credentials: keys });
      for (const date of ['2026-03-02', '2026-03-03', '2026-03-04']) {
        await launcher.send(new RunJobFlowCommand(nightly(date)));
        emulator.context.clock.advance(8 * hour);
      }
      emulator.emr.catchUp();
      await emulator.emr.logsWritten();
      const config = loadConfig(
        { dataDir: mkdtempSync(path.join(tmpdir(), 'setpoint-emr-ui-')), port: 0 },
        {
          SETPOINT_LOG_LEVEL: 'warn',
          SETPOINT_JOB_RETRY_DELAY_SECONDS: '0.2',
          SETPOINT_JOB_MAX_ATTEMPTS: '8',
          SETPOINT_LOG_MAX_INCOMPLETE_ATTEMPTS: '4',
          SETPOINT_RECONCILE_INTERVAL_SECONDS: '0',
          SETPOINT_OUTBOUND_ALLOW_LIST: '127.0.0.1',
        },
      );
      server = await startServer(config);
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
      launcher?.destroy();
      await server?.stop();
      await emulator?.close();
      await s3Server?.close();
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
      const recommendation = await eventually(async () => {
        const latest = await server.services.recommendations.latest(projectId).catch(() => undefined);
        return latest?.state === 'SUCCESS' ? latest : undefined;
      }, 'a recommendation');

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
        expect(await stepRow.getByRole('cell').nth(5).textContent()).toBe('SUCCESS');
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
      await page.getByTestId('emr-nothing-applied').waitFor();
      await shot(page, 'emr-project');

      // A transient workload has nothing Setpoint changed: rolling back is refused with the server's reason.
      await page.getByRole('button', { name: 'Roll back', exact: true }).click();
      const rollback = page.getByRole('dialog', { name: "Roll back Setpoint's last change?" });
      await rollback.getByRole('button', { name: 'Roll back', exact: true }).click();
      await rollback
        .getByRole('alert')
        .getByText(/runs on transient clusters: the next launch takes the recommendation/)
        .waitFor();
      await rollback.getByRole('button', { name: 'Cancel' }).click();

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
  },
);
