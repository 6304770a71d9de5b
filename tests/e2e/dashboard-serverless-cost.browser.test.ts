import type { Browser, BrowserContext } from 'playwright-core';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatUsd } from '../../web/src/lib/format.js';
import { eventually, type Harness, processedRun } from '../databricks/integration-harness.js';
import {
  emulatorCalls,
  reconcileNow,
  serverlessJobSettings,
  startServerlessHarness,
} from '../databricks/serverless-support.js';
import { launchChromium, signIn } from '../support/browser.js';
import { describeFull } from '../support/tiers.js';

const password = 'correct horse battery staple';
const hourMs = 3_600_000;

/** A serverless job's first run: "pending" until its bill lands, never $0; then its billed cost. */
describeFull(
  'dashboard: a serverless run whose cost waits for its bill, in Chromium',
  'Debian chromium (/usr/bin/chromium)',
  () => {
    let h: Harness;
    let browser: Browser;
    let context: BrowserContext;
    const { clock, createJob, runNow } = emulatorCalls(() => h);

    beforeAll(async () => {
      h = await startServerlessHarness(41);
      await h.server.services.users.create('ada', password, 'admin');
      browser = await launchChromium();
      context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      await signIn(context, h.server.url, 'ada', password);
    });

    afterAll(async () => {
      await context?.close();
      await browser?.close();
      await h?.close();
    });

    it('shows "pending" with the reason on the run and in its detail, then the billed cost', async () => {
      const integration = databricksIntegrationOf(h.server.services);
      const jobId = await createJob(serverlessJobSettings('Serverless first run', 'daily-aggregation'));
      const [imported] = await integration.onboarding.importJobs(h.workspaceId, { jobIds: [jobId] }, 'test');
      const projectId = imported!.projects[0]!.id;
      const databricksRunId = await runNow(jobId);
      // the emulated clock stops as the run ends: its bill (an hour later) lands only when the test moves it
      await eventually(async () => {
        const run = await h.databricks.getRun(databricksRunId);
        return run.state.life_cycle_state === 'TERMINATED' ? run : undefined;
      }, 'the run to end');
      await clock({ speed: 0 });
      const run = await processedRun(h, projectId, databricksRunId);

      const page = await context.newPage();
      await page.goto(`${h.server.url}/projects/${projectId}/runs`);
      const pending = page.getByTestId('cost-pending');
      await expect.poll(() => pending.textContent()).toBe('pending');
      expect(await pending.getAttribute('title')).toMatch(
        /^cost pending: billing not yet available: Databricks writes serverless usage/,
      );
      // the DBU column has no estimate to show ("—"), and nothing on the row reads $0
      const row = page.locator(`tr[data-run-id="${run.id}"]`);
      expect(await row.textContent()).not.toContain('$0.00');
      await row.getByRole('button').click();
      await expect
        .poll(() => page.getByTestId('run-cost-pending').textContent())
        .toMatch(/^Cost pending: billing not yet available: .*no billed run to estimate from/);

      await eventually(async () => {
        await reconcileNow(h);
        const [billing] = await integration.store.billingOfRuns([run.id]);
        if (billing?.billed_dbu_usd === null) await clock({ advance_ms: hourMs / 2 });
        return billing?.billed_dbu_usd === null ? undefined : billing;
      }, 'the bill of the run');
      const billed = await h.server.services.runs.get(projectId, run.id);
      await page.reload();
      await expect.poll(() => row.locator('td').nth(3).textContent()).toBe(formatUsd(billed.cost!.totalUsd));
      expect(await page.getByTestId('cost-pending').count()).toBe(0);
      await page.close();
    });
  },
);
