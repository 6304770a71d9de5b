import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../service/support/service-harness.js';
import { launchChromium, screenshotDir } from '../support/browser.js';
import { parseCsv } from '../support/csv-parse.js';
import { type SpawnedServer, spawnSetpoint } from '../support/spawn-server.js';
import { describeFull } from '../support/tiers.js';
import {
  connectSeedClient,
  type SeedClient,
  type SeededProject,
  seedProjects,
  seedRecommendation,
  seedRuns,
  waitForPipeline,
  workersForRun,
} from './dashboard-seed.js';

const trickyName = 'Revenue, "gold" tables';
const projectNames = [
  'nightly-orders-etl',
  trickyName,
  ...Array.from(
    { length: 28 },
    (_, index) =>
      `pipeline-${String(index).padStart(2, '0')}-${['ingest', 'report', 'features', 'orders'][index % 4]}`,
  ),
];
const slaMinutes = 5;
const byName = (a: string, b: string) =>
  a.toLowerCase().localeCompare(b.toLowerCase(), 'en', { numeric: true });
const runCount = 64;
const setpointFrom = 40;

describeFull(
  'dashboard: projects, timeline and settings in Chromium',
  'Debian chromium (/usr/bin/chromium)',
  () => {
    let server: SpawnedServer;
    let browser: Browser;
    let context: BrowserContext;
    let client: SeedClient;
    let projects: SeededProject[];
    let etl: SeededProject;

    beforeAll(async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-dashboard-'));
      server = await spawnSetpoint(
        ['serve', '--port', '0', '--data-dir', dataDir],
        /listening on (http:\/\/\S+)/,
        {
          SETPOINT_LOG_LEVEL: 'warn',
          SETPOINT_RATE_LIMIT_PER_MINUTE: '100000',
        },
      );
      client = await connectSeedClient(server.url, dataDir);
      projects = await seedProjects(client, projectNames, (index) => ({
        slaMinutes: index === 0 ? slaMinutes : null,
        autoApply: index % 5 === 1,
      }));
      etl = projects[0]!;
      // Forty runs on the job's own clusters, then runs on the cluster Setpoint recommended.
      await seedRuns(client, etl.id, { from: 0, to: setpointFrom, of: runCount });
      await waitForPipeline(client, etl.id, setpointFrom);
      const recommendationId = await seedRecommendation(client, etl.id);
      await seedRuns(client, etl.id, { from: setpointFrom, to: runCount, of: runCount, recommendationId });
      await waitForPipeline(client, etl.id, runCount);
      browser = await launchChromium();
      // This server authenticates API calls with bearer tokens; the browser sends one as a proxy would.
      context = await browser.newContext({
        extraHTTPHeaders: { authorization: `Bearer ${client.token}` },
        acceptDownloads: true,
        viewport: { width: 1440, height: 900 },
      });
      // bounded by the two pipeline waits (180 s each), not by the default hook limit
    }, 420_000);

    afterAll(async () => {
      await context?.close();
      await browser?.close();
      await server?.stop();
    });

    const openProjects = async (query = ''): Promise<Page> => {
      const page = await context.newPage();
      await page.goto(`${server.url}/projects${query}`);
      await page.getByTestId('project-row').first().waitFor();
      return page;
    };

    const shownNames = (page: Page) =>
      page.locator('[data-testid="project-row"] td[data-column="name"]').allTextContents();

    describe('projects page', () => {
      it('lists every project as a link to its page, sorted by name', async () => {
        const page = await openProjects();
        expect(await page.getByTestId('project-count-shown').textContent()).toBe(
          `${projectNames.length} projects`,
        );
        // Only the rows in view are rendered: they are the first ones in name order.
        const names = await shownNames(page);
        expect(names.length).toBeGreaterThan(10);
        expect(names).toEqual([...projectNames].sort(byName).slice(0, names.length));
        const href = await page.getByRole('link', { name: 'nightly-orders-etl' }).getAttribute('href');
        expect(href).toBe(`/projects/${etl.id}`);
        await page.screenshot({ path: path.join(screenshotDir, 'projects-light.png') });
        await page.close();
      });

      it('sorts descending on a second click and filters by search, keeping both in the address', async () => {
        const page = await openProjects();
        const nameHeader = page.getByRole('columnheader', { name: /Project/ });
        await nameHeader.getByRole('button').click();
        await expect.poll(() => nameHeader.getAttribute('aria-sort')).toBe('descending');
        const descending = await shownNames(page);
        expect(descending).toEqual([...projectNames].sort(byName).reverse().slice(0, descending.length));

        await page.keyboard.press('/');
        expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
          'Search projects',
        );
        await page.keyboard.type('orders');
        const matching = projectNames.filter((name) => name.includes('orders'));
        await page.getByText(`${matching.length} of ${projectNames.length} projects`).waitFor();
        await expect.poll(() => shownNames(page)).toHaveLength(matching.length);
        expect((await shownNames(page)).every((name) => name.includes('orders'))).toBe(true);
        expect(new URL(page.url()).searchParams.get('q')).toBe('orders');
        expect(new URL(page.url()).searchParams.get('sort')).toBe('-name');
        await page.close();
      });

      it('exports exactly the shown rows and columns as RFC 4180 CSV', async () => {
        const page = await openProjects('?q=gold');
        await page.getByText('Columns', { exact: true }).click();
        await page.getByLabel('Workspace', { exact: true }).uncheck();
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('button', { name: 'Export CSV' }).click(),
        ]);
        const csv = readFileSync((await download.path())!, 'utf8');
        expect(csv).toContain('"Revenue, ""gold"" tables"');
        const [header, ...rows] = parseCsv(csv);
        // Raw values under snake_case headers with units, one group of fields per shown column.
        expect(header).toEqual(expect.arrayContaining(['project', 'phase', 'cost_per_run_usd', 'sla_s']));
        expect(header).not.toContain('workspace');
        expect(rows.map((row) => row[0])).toEqual([trickyName]);
        expect(rows[0]).toHaveLength(header!.length);
        await page.close();
      });
    });

    describe('project page', () => {
      it('opens from its row and charts every run with the SLA line and the configuration changes', async () => {
        const page = await openProjects();
        await page.getByRole('link', { name: 'nightly-orders-etl' }).click();
        await page.waitForURL(`**/projects/${etl.id}`);
        await page.getByTestId('summary-cost').waitFor();
        // Savings exist once Setpoint configured runs, with the method named next to them.
        expect(await page.getByTestId('summary-savings').textContent()).toMatch(
          /\$[\d.]+.*by cost(\/GB)? change/,
        );
        expect(await page.getByTestId('roi-method').textContent()).toContain('Savings are measured by');
        await page.screenshot({ path: path.join(screenshotDir, 'project-summary.png') });

        await page.getByRole('link', { name: 'Timeline' }).click();
        const runtime = page.getByTestId('runtime-chart');
        await runtime.locator('svg').waitFor();
        expect(await runtime.getAttribute('data-points')).toBe(String(runCount));
        expect(await runtime.getAttribute('data-sla')).toBe(String(slaMinutes));
        await expect
          .poll(() => runtime.locator('svg text').allTextContents())
          .toContain(`SLA ${slaMinutes.toFixed(1)} min`);
        const expectedChanges = Array.from({ length: runCount - 1 }, (_, i) => i + 1).filter(
          (i) => workersForRun(i) !== workersForRun(i - 1),
        ).length;
        expect(await page.getByTestId('cost-chart').getAttribute('data-changes')).toBe(
          String(expectedChanges),
        );
        expect(await page.getByTestId('cost-chart').getAttribute('data-points')).toBe(String(runCount));
        await page.screenshot({ path: path.join(screenshotDir, 'project-timeline.png'), fullPage: true });

        await page.getByRole('button', { name: 'Latest run' }).click();
        expect(await page.getByTestId('focused-run').textContent()).toContain(
          `${workersForRun(runCount - 1)} workers`,
        );
        await page.close();
      });

      it('saves a new SLA and shows it after a reload', async () => {
        const page = await context.newPage();
        await page.goto(`${server.url}/projects/${etl.id}/settings`);
        const sla = page.getByLabel('Runtime SLA (minutes)');
        await sla.fill('45');
        await page.getByRole('button', { name: 'Save settings' }).click();
        await page.getByText('Settings saved.').waitFor();
        const stored = await client.request<{ settings: { slaMinutes: number } }>(
          'GET',
          `/api/v1/projects/${etl.id}`,
        );
        expect(stored.settings.slaMinutes).toBe(45);
        await page.reload();
        expect(await page.getByLabel('Runtime SLA (minutes)').inputValue()).toBe('45');
        await page.screenshot({ path: path.join(screenshotDir, 'project-settings.png'), fullPage: true });
        await page.close();
      });

      it('asks before turning auto-apply on and leaves it off when cancelled', async () => {
        const page = await context.newPage();
        await page.goto(`${server.url}/projects/${etl.id}/settings`);
        const modes = page.getByRole('radiogroup', { name: 'Apply mode' });
        const autoApply = modes.getByRole('radio', { name: 'Auto', exact: true });
        // the radio itself is hidden under its label, which is what a person clicks
        await modes.getByText('Auto', { exact: true }).click();
        const dialog = page.getByRole('dialog', { name: 'Turn on auto-apply?' });
        await dialog.waitFor();
        expect(await dialog.textContent()).toContain('without asking anyone');
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        expect(await autoApply.isChecked()).toBe(false);
        await page.close();
      });

      it('resets learning after confirmation and says since when', async () => {
        const target = projects[2]!;
        const page = await context.newPage();
        await page.goto(`${server.url}/projects/${target.id}/settings`);
        await page.getByRole('button', { name: 'Reset learning' }).click();
        const dialog = page.getByRole('dialog', { name: `Reset learning for ${target.name}?` });
        expect(await dialog.textContent()).toContain('Every run so far stays in the history');
        await dialog.getByRole('button', { name: 'Reset learning' }).click();
        await page.getByText('Learning restarts with the next run.').waitFor();
        await page.getByTestId('learning-reset-at').waitFor();

        const stored = await client.request<{ learning_reset_at: number | null }>(
          'GET',
          `/api/v1/projects/${target.id}`,
        );
        expect(stored.learning_reset_at).toEqual(expect.any(Number));
        const audit = await client.request<{ items: Array<{ action: string }> }>(
          'GET',
          `/api/v1/projects/${target.id}/audit`,
        );
        expect(audit.items.map((entry) => entry.action)).toContain('reset');
        await page.screenshot({ path: path.join(screenshotDir, 'project-reset.png'), fullPage: true });
        await page.close();
      });

      it('renders the run analysis when a run is opened', async () => {
        const page = await context.newPage();
        await page.goto(`${server.url}/projects/${etl.id}/runs`);
        await page.getByTestId('runs-table').locator('tbody button').first().click();
        const analysis = page.getByTestId('run-analysis');
        await analysis.waitFor();
        expect(await analysis.textContent()).toContain('Executors');
        await page.screenshot({ path: path.join(screenshotDir, 'project-runs.png'), fullPage: true });
        await page.close();
      });
    });

    it('requests a recommendation, shows it as a diff of the cluster and applies it after confirmation', async () => {
      const page = await context.newPage();
      await page.goto(`${server.url}/projects/${etl.id}/recommendation`);
      // The page shows the previous recommendation until the new one is ready; apply the new one.
      const requested = page.waitForResponse(
        (response) => response.request().method() === 'POST' && response.url().endsWith('/recommendations'),
      );
      await page.getByRole('button', { name: 'Generate new' }).click();
      const { id } = (await (await requested).json()) as { id: string };
      await eventually(
        async () => {
          const rec = await client.request<{ state: string }>(
            'GET',
            `/api/v1/projects/${etl.id}/recommendations/${id}`,
          );
          return rec.state === 'PENDING' ? undefined : rec;
        },
        60_000,
        'the requested recommendation',
      );
      await page.reload();
      const diff = page.getByTestId('config-diff');
      await diff.waitFor({ timeout: 60_000 });
      const changed = await diff.locator('tr.diff-changed').count();
      expect(changed).toBeGreaterThan(0);
      await page.getByTestId('pareto-chart').waitFor();
      expect(Number(await page.getByTestId('pareto-chart').getAttribute('data-tried'))).toBe(3);
      await page.screenshot({ path: path.join(screenshotDir, 'project-recommendation.png'), fullPage: true });

      await page.getByRole('button', { name: 'Apply', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Apply this recommendation?' });
      await dialog.getByRole('button', { name: 'Apply to the job' }).click();
      await page.getByText('Applied: the job uses the recommended cluster').waitFor();
      const latest = await client.request<{ id: string; applied: { requested_at: number } | null }>(
        'GET',
        `/api/v1/projects/${etl.id}/recommendations/latest`,
      );
      expect(latest.id).toBe(id);
      expect(latest.applied).not.toBeNull();
      await page.close();
    });

    it('charts the Spark metrics of the recent runs', async () => {
      const page = await context.newPage();
      await page.goto(`${server.url}/projects/${etl.id}/metrics`);
      await page.getByTestId('utilization-chart').waitFor({ timeout: 60_000 });
      expect(await page.locator('.metrics tbody tr').count()).toBe(60);
      await page.screenshot({ path: path.join(screenshotDir, 'project-metrics.png'), fullPage: true });
      await page.close();
    });

    it('adds a workspace and lists it', async () => {
      const page = await context.newPage();
      await page.goto(`${server.url}/workspaces`);
      await page.getByRole('button', { name: 'Add workspace' }).click();
      await page.getByLabel('Name').fill('analytics-prod');
      await page.getByLabel('Host').fill('https://dbc-1234abcd-5678.cloud.databricks.com');
      await page.getByRole('textbox', { name: /^Access token/ }).fill('dapi-not-a-real-token');
      // the host is not a real workspace: the dashboard signs in before registering unless told not to
      await page.getByRole('checkbox', { name: 'Register without signing in first' }).check();
      await page.getByRole('button', { name: 'Add and check access' }).click();
      await page.getByRole('cell', { name: 'analytics-prod' }).waitFor();
      const stored = await client.request<{ items: Array<{ name: string; has_credentials: boolean }> }>(
        'GET',
        '/api/v1/workspaces',
      );
      expect(stored.items).toEqual([
        expect.objectContaining({ name: 'analytics-prod', has_credentials: true }),
      ]);
      await page.getByTestId('access-check').waitFor();
      await page.screenshot({ path: path.join(screenshotDir, 'workspaces.png'), fullPage: true });
      await page.close();
    });

    it('switches to the dark theme with the t key and keeps it after a reload', async () => {
      const page = await openProjects();
      await page.keyboard.press('t');
      const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
      const first = await theme();
      await page.reload();
      await page.getByTestId('project-row').first().waitFor();
      expect(await theme()).toBe(first);
      if (first !== 'dark') {
        await page.keyboard.press('t');
        expect(await theme()).toBe('dark');
      }
      await page.screenshot({ path: path.join(screenshotDir, 'projects-dark.png') });
      await page.goto(`${server.url}/projects/${etl.id}/timeline`);
      await page.getByTestId('runtime-chart').locator('svg').waitFor();
      await page
        .getByText(`SLA ${slaMinutes.toFixed(1)} min`)
        .or(page.getByText('SLA 45.0 min'))
        .first()
        .waitFor();
      await page.screenshot({ path: path.join(screenshotDir, 'project-timeline-dark.png'), fullPage: true });
      await page.close();
    });
  },
);
