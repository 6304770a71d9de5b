import { defaultWarehouseId } from '@setpoint/databricks-emulator/server/statements-routes';
import type { Browser, BrowserContext } from 'playwright-core';
import { createStatementClient } from 'setpoint/platforms/databricks/api/statements';
import { reconcileBilling } from 'setpoint/platforms/databricks/billing/billing-reconciler';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { createSystemTablesReader } from 'setpoint/platforms/databricks/system-tables/system-tables-reader';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatUsd } from '../../web/src/lib/format.js';
import {
  eventually,
  type Harness,
  importJob,
  jobIdByName,
  processedRun,
  startHarness,
} from '../databricks/integration-harness.js';
import { launchChromium } from '../support/browser.js';
import { describeFull } from '../support/tiers.js';

const password = 'correct horse battery staple';
const hourMs = 3_600_000;

/** A run's DBU cost estimated, then billed through system tables, as the dashboard shows it. */
describeFull(
  'dashboard: estimated and billed DBU cost in Chromium',
  'Debian chromium (/usr/bin/chromium)',
  () => {
    let h: Harness;
    let browser: Browser;
    let context: BrowserContext;

    beforeAll(async () => {
      h = await startHarness({
        seed: 9,
        emulator: {
          systemTables: { billingLagMs: hourMs, restatementRate: 1, restatementDelayMs: 2 * hourMs },
        },
      });
      await h.server.services.users.create('ada', password, 'admin');
      browser = await launchChromium();
      context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${h.server.url}/login`);
      await page.getByLabel('Username').fill('ada');
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/projects');
      await page.close();
    });

    afterAll(async () => {
      await context?.close();
      await browser?.close();
      await h?.close();
    });

    it('shows each run as estimated / billed, and the organization’s estimate accuracy', async () => {
      const integration = databricksIntegrationOf(h.server.services);
      await integration.checkAccess(h.workspaceId, undefined, defaultWarehouseId);
      const { jobId, projectId } = await importJob(h, await jobIdByName(h.databricks, 'Daily aggregation'), {
        slaMinutes: 240,
      });
      const run = await processedRun(h, projectId, await h.databricks.runNow(jobId));

      const page = await context.newPage();
      await page.goto(`${h.server.url}/projects/${projectId}/runs`);
      const cell = page.getByTestId('run-billing').first();
      await expect.poll(() => cell.textContent()).toMatch(/\/ pending$/);

      const { transport } = await integration.connect(h.workspaceId);
      const reader = createSystemTablesReader(
        createStatementClient(transport, { warehouseId: defaultWarehouseId }),
      );
      const settled = await eventually(async () => {
        await reconcileBilling({ store: integration.store, reader }, h.workspaceId, {
          waitingIntervalMs: 0,
          billedIntervalMs: 0,
        });
        const [row] = await integration.store.billingOfRuns([run.id]);
        return row?.restated ? row : undefined;
      }, 'the restated bill');

      await page.reload();
      await expect
        .poll(() => cell.textContent())
        .toBe(`${formatUsd(settled.estimated_dbu_usd)} / ${formatUsd(settled.billed_dbu_usd)} (restated)`);

      await page.goto(`${h.server.url}/projects`);
      const accuracy = page.getByTestId('kpi-estimate-accuracy');
      const expected =
        Math.abs(settled.estimated_dbu_usd - settled.billed_dbu_usd!) / settled.billed_dbu_usd!;
      await expect.poll(() => accuracy.textContent()).toContain(`±${(expected * 100).toFixed(1)}%`);
      await expect.poll(() => accuracy.textContent()).toContain('1 billed runs, 1 restated');
      await page.close();
    });
  },
);
