import path from 'node:path';
import type { EmrAccountResource } from '@setpoint/api-contract/emr';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { RunningServer } from 'setpoint/server/start-server';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { eventually } from '../databricks/integration-harness.js';
import { startSetpointForEmr } from '../emr/support/emr-test-bench.js';
import {
  type ServerlessApplication,
  serverlessRegion,
  startServerlessApplication,
} from '../emr/support/serverless-application.js';
import { launchChromium, screenshotDir, signIn } from '../support/browser.js';
import { type MotoServer, startMotoServer } from '../support/moto-server.js';
import { describeFull } from '../support/tiers.js';

vi.setConfig({ testTimeout: 300_000 });

const password = 'correct horse battery staple';
const keys = { accessKeyId: 'AKIAMOTOSERVERLESS01', secretAccessKey: 'moto-serverless-secret-never-shown' };
const minute = 60_000;
const day = 86_400_000;

/**
 * The EMR Serverless import in the dashboard, driven as a person uses it: the EMR accounts page lists an
 * account's EMR Serverless applications and their jobs (moto's emr-serverless, its job runs given times and
 * bills on moto's own records), imports one job as a monitored project, and the project's page shows its runs.
 */
describeFull(
  'dashboard EMR Serverless import against moto in Chromium',
  'Debian chromium (/usr/bin/chromium) and moto[server] from PyPI (SETPOINT_PYTHON)',
  () => {
    let moto: MotoServer;
    let server: RunningServer;
    let app: ServerlessApplication;
    let browser: Browser;
    let context: BrowserContext;
    let applicationId = '';
    const now = Date.now();

    const startRun = (name: string, entryPoint: string, clientToken: string) =>
      app.startRun(name, entryPoint, clientToken);

    beforeAll(async () => {
      moto = await startMotoServer();
      app = await startServerlessApplication(moto, keys);
      applicationId = app.applicationId;
      // two nightly runs of one job (30 and 34 minutes, billed) and one run of another job
      for (const [index, minutes] of [30, 34].entries()) {
        const id = await startRun(`orders-2026-12-0${index + 1}`, 's3://jobs/orders.py', `orders-${index}`);
        const createdAt = now - (2 - index) * day;
        await moto.setJobRun({
          applicationId,
          jobRunId: id,
          createdAt,
          startedAt: createdAt + minute,
          endedAt: createdAt + minutes * minute,
          totalExecutionDurationSeconds: (minutes - 1) * 60,
          billed: { vCPUHour: 6 + index, memoryGBHour: 24 + 4 * index, storageGBHour: 0 },
        });
      }
      const sessions = await startRun('sessions-2026-12-02', 's3://jobs/sessions.py', 'sessions-0');
      await moto.setJobRun({
        applicationId,
        jobRunId: sessions,
        createdAt: now - day,
        endedAt: now - day + 5 * minute,
      });

      server = await startSetpointForEmr('emr-serverless-ui');
      await server.services.users.create('ada', password, 'admin');
      const key = await server.services.apiKeys.create('emr-serverless-ui', 'test');
      const { accessToken } = await server.services.apiKeys.exchange(key.id, key.secret);
      const created = await server.app.inject({
        method: 'POST',
        url: '/api/v1/emr/accounts',
        headers: { authorization: `Bearer ${accessToken}` },
        payload: {
          name: 'analytics (serverless)',
          region: serverlessRegion,
          endpoint: moto.endpoint,
          credentials: {
            kind: 'access-keys',
            access_key_id: keys.accessKeyId,
            secret_access_key: keys.secretAccessKey,
          },
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      expect((created.json() as EmrAccountResource).name).toBe('analytics (serverless)');
      browser = await launchChromium();
      context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      await signIn(context, server.url, 'ada', password);
    }, 180_000);

    afterAll(async () => {
      await context?.close();
      await browser?.close();
      await server?.stop();
      app?.launcher.destroy();
      await moto?.close();
    });

    const shot = (page: Page, name: string) =>
      page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true });

    it('lists the applications and their jobs, imports a job as a project, and shows its runs', async () => {
      const page = await context.newPage();
      await page.goto(`${server.url}/emr`);
      const row = page
        .getByRole('table', { name: 'EMR accounts' })
        .getByRole('row', { name: /analytics \(serverless\)/ });
      await row.getByRole('button', { name: 'Serverless jobs' }).click();

      const card = page.getByTestId('emr-serverless-discover');
      const jobs = card.getByRole('table', { name: 'Jobs of analytics' });
      await jobs.waitFor();
      await card.getByText(`${applicationId} · emr-7.2.0 · X86_64`).waitFor();
      await card.getByText('1 application in us-east-1, 2 jobs with runs in the last 30 days.').waitFor();
      const orders = jobs.getByRole('row', { name: /orders/ });
      expect(await orders.getByRole('cell').nth(2).textContent()).toBe('2');
      const sessions = jobs.getByRole('row', { name: /sessions/ });
      await sessions.getByText('ran once: nothing to learn yet').waitFor();
      // nothing chosen, nothing to import
      expect(await card.getByRole('button', { name: 'Import selected' }).isDisabled()).toBe(true);

      await orders.getByRole('checkbox', { name: 'Select orders' }).check();
      await card.getByLabel('Runtime SLA (minutes, optional)').fill('45');
      await card.getByRole('button', { name: 'Import 1 selected' }).click();
      const imported = card.getByTestId('emr-serverless-imported');
      await imported.getByText('(2 runs queued)').waitFor();
      const link = imported.getByRole('link', { name: 'orders' });
      const projectId = decodeURIComponent((await link.getAttribute('href'))?.split('/').at(-1) ?? '');
      expect(projectId).not.toBe('');
      // listed again, the job links to its project and can no longer be selected
      await jobs
        .getByRole('row', { name: /orders/ })
        .getByRole('link', { name: 'imported' })
        .waitFor();
      expect(await jobs.getByRole('checkbox', { name: 'Select orders' }).count()).toBe(0);
      const html = await page.content();
      expect(html).not.toContain(keys.secretAccessKey);
      await shot(page, 'emr-serverless-imported');

      // the import went through the API: one project with the SLA, its two runs collected and costed as billed
      const project = await server.services.projects.get(projectId);
      expect(project.settings.slaMinutes).toBe(45);
      const runs = await eventually(async () => {
        const page = await server.services.runs.list(projectId, { limit: 10, offset: 0 });
        return page.items.length === 2 && page.items.every((run) => run.cost !== null)
          ? page.items
          : undefined;
      }, 'the two runs of the imported job collected and costed');
      expect(runs.every((run) => (run.cost?.totalUsd ?? 0) > 0)).toBe(true);

      await link.click();
      await page.waitForURL(`**/projects/${encodeURIComponent(projectId)}**`);
      await page
        .getByRole('heading', { name: /orders/ })
        .first()
        .waitFor();
      await shot(page, 'emr-serverless-project');
      await page.close();
    });
  },
);
