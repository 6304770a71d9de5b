import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import {
  type Harness,
  importJob,
  jobIdByName,
  processedRun,
  startHarness,
} from '../databricks/integration-harness.js';
import { launchChromium, pageOverflow, screenshotDir } from '../support/browser.js';
import { parseCsv } from '../support/csv-parse.js';
import { describeFull } from '../support/tiers.js';

vi.setConfig({ testTimeout: 180_000 });

const password = 'correct horse battery staple';
const viewport = { width: 1280, height: 800 };

const headers = (page: Page, table: string) =>
  page
    .locator(`[data-testid="${table}"] thead th`)
    .allTextContents()
    .then((texts) => texts.map((text) => text.replace(/[▲▼]/g, '')).filter(Boolean));

async function download(page: Page, button: string): Promise<string[][]> {
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: button }).click(),
  ]);
  return parseCsv(readFileSync((await file.path())!, 'utf8'));
}

/**
 * The dashboard's tables at 1280 × 800 against an emulated workspace: they fit without sideways
 * scrolling, remember their column order per user, sort, export raw numbers and explain every "—".
 */
describeFull('dashboard tables at 1280 px in Chromium', 'Debian chromium (/usr/bin/chromium)', () => {
  let h: Harness;
  let browser: Browser;
  let context: BrowserContext;
  let measuredProject: string;

  beforeAll(async () => {
    h = await startHarness({ seed: 13 });
    await h.server.services.users.create('ada', password, 'admin');
    // One project with a processed run (numbers to export), two still waiting for their first run.
    const measured = await importJob(h, await jobIdByName(h.databricks, 'Daily aggregation'), {
      slaMinutes: 240,
    });
    measuredProject = measured.projectId;
    await importJob(h, await jobIdByName(h.databricks, 'Skewed join'));
    await importJob(h, await jobIdByName(h.databricks, 'CPU-bound ML scoring'));
    await processedRun(
      h,
      measured.projectId,
      await h.databricks.runNow(await jobIdByName(h.databricks, 'Daily aggregation')),
    );
    browser = await launchChromium();
    context = await browser.newContext({ viewport, acceptDownloads: true });
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

  const openProjects = async () => {
    const page = await context.newPage();
    await page.goto(`${h.server.url}/projects`);
    await page.getByTestId('project-row').first().waitFor();
    await expect.poll(() => page.getByTestId('project-row').count()).toBe(3);
    return page;
  };

  const openDiscover = async () => {
    const page = await context.newPage();
    await page.goto(`${h.server.url}/discover`);
    await page.getByTestId('discover-table').locator('tbody tr').first().waitFor({ timeout: 60_000 });
    return page;
  };

  it('shows every table page without sideways scrolling, the last project column inside the window', async () => {
    const page = await openProjects();
    expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
    const scroller = page.getByTestId('projects-scroller');
    expect(
      await scroller.evaluate((element) => element.scrollWidth - element.clientWidth),
    ).toBeLessThanOrEqual(0);
    const lastHeader = page.locator('[data-testid="projects-table"] thead th').last();
    expect(await lastHeader.textContent()).toContain('Apply');
    const box = await lastHeader.boundingBox();
    expect((box?.x ?? Infinity) + (box?.width ?? 0)).toBeLessThanOrEqual(viewport.width);
    // The Columns menu opens inside the window, not over the sidebar.
    await page.getByText('Columns', { exact: true }).click();
    const menu = await page.getByTestId('column-chooser').boundingBox();
    const sidebar = await page.locator('.sidebar').boundingBox();
    expect(menu?.x ?? 0).toBeGreaterThanOrEqual((sidebar?.x ?? 0) + (sidebar?.width ?? 0));
    expect((menu?.x ?? 0) + (menu?.width ?? 0)).toBeLessThanOrEqual(viewport.width);
    await page.screenshot({ path: path.join(screenshotDir, 'tables-projects-1280.png') });

    for (const address of [
      '/discover',
      '/workspaces',
      `/projects/${measuredProject}/runs`,
      `/projects/${measuredProject}/timeline`,
      `/projects/${measuredProject}/metrics`,
    ]) {
      await page.goto(`${h.server.url}${address}`);
      await page.locator('main h1, main h2').first().waitFor();
      await page.waitForLoadState('networkidle');
      expect(await pageOverflow(page), address).toBeLessThanOrEqual(0);
    }
    await page.close();
  });

  it('keeps a reordered and a hidden column after a reload, for this user only', async () => {
    const page = await openProjects();
    const before = await headers(page, 'projects-table');
    expect(before.slice(0, 3)).toEqual(['Project', 'Workspace', 'Phase']);
    await page.getByText('Columns', { exact: true }).click();
    await page.getByRole('button', { name: 'Move Phase left' }).click();
    await page.getByRole('button', { name: 'Move Phase left' }).click();
    await page
      .getByTestId('column-chooser')
      .getByRole('checkbox', { name: 'Last run', exact: true })
      .uncheck();
    const moved = ['Phase', 'Project', 'Workspace'];
    await expect.poll(async () => (await headers(page, 'projects-table')).slice(0, 3)).toEqual(moved);

    await page.reload();
    await page.getByTestId('project-row').first().waitFor();
    const after = await headers(page, 'projects-table');
    expect(after.slice(0, 3)).toEqual(moved);
    expect(after).not.toContain('Last run');
    expect(after).toHaveLength(before.length - 1);
    const keys = await page.evaluate(() => Object.keys(localStorage));
    expect(keys).toContain('setpoint-columns:ada:projects');

    await page.getByText('Columns', { exact: true }).click();
    await page.getByRole('button', { name: 'Reset to default' }).click();
    await expect.poll(() => headers(page, 'projects-table')).toEqual(before);
    await page.close();
  });

  it('reorders columns by dragging a header onto another, kept after a reload', async () => {
    /** Drags the header of `label` onto the header of `target` (HTML5 drag and drop in Chromium). */
    const drag = (page: Page, table: string, label: string, target: string) =>
      page
        .locator(`[data-testid="${table}"] thead th[data-column-id]`, { hasText: label })
        .first()
        .dragTo(
          page.locator(`[data-testid="${table}"] thead th[data-column-id]`, { hasText: target }).first(),
        );

    const page = await openProjects();
    const before = await headers(page, 'projects-table');
    expect(before.slice(0, 3)).toEqual(['Project', 'Workspace', 'Phase']);
    // Right to left: Phase takes Project's place; left to right: Project goes after Workspace.
    await drag(page, 'projects-table', 'Phase', 'Project');
    await expect
      .poll(async () => (await headers(page, 'projects-table')).slice(0, 3))
      .toEqual(['Phase', 'Project', 'Workspace']);
    await drag(page, 'projects-table', 'Project', 'Workspace');
    const moved = ['Phase', 'Workspace', 'Project'];
    await expect.poll(async () => (await headers(page, 'projects-table')).slice(0, 3)).toEqual(moved);
    await page.reload();
    await page.getByTestId('project-row').first().waitFor();
    expect((await headers(page, 'projects-table')).slice(0, 3)).toEqual(moved);
    expect(await headers(page, 'projects-table')).toHaveLength(before.length);
    // The cells follow their headers.
    const firstRow = page.getByTestId('project-row').first().locator('td');
    expect(await firstRow.nth(0).textContent()).toMatch(
      /^(Pending setup|Learning|Optimizing|Rebasing|Monitoring)/,
    );
    await page.getByText('Columns', { exact: true }).click();
    await page.getByRole('button', { name: 'Reset to default' }).click();
    await expect.poll(() => headers(page, 'projects-table')).toEqual(before);

    await page.goto(`${h.server.url}/discover`);
    await page.getByTestId('discover-table').locator('tbody tr').first().waitFor({ timeout: 60_000 });
    const discover = await headers(page, 'discover-table');
    const [first, second, third] = discover;
    if (!first || !second || !third) throw new Error(`Discover has too few columns: ${discover.join(', ')}`);
    await drag(page, 'discover-table', third, first);
    const reordered = [third, first, second, ...discover.slice(3)];
    await expect.poll(() => headers(page, 'discover-table')).toEqual(reordered);
    await page.reload();
    await page.getByTestId('discover-table').locator('tbody tr').first().waitFor({ timeout: 60_000 });
    expect(await headers(page, 'discover-table')).toEqual(reordered);
    await page.getByText('Columns', { exact: true }).click();
    await page.getByRole('button', { name: 'Reset to default' }).click();
    await expect.poll(() => headers(page, 'discover-table')).toEqual(discover);
    await page.close();
  });

  it('explains every "—" in the projects and Discover tables', async () => {
    const page = await openProjects();
    const dashes = page.locator('[data-testid="project-row"] td').filter({ hasText: /^—$/ });
    expect(await dashes.count()).toBeGreaterThan(0);
    for (const cell of await dashes.all()) {
      const reason = await cell.locator('[data-missing]').getAttribute('title');
      expect(reason?.length ?? 0).toBeGreaterThan(10);
    }
    await page.goto(`${h.server.url}/discover`);
    await page.getByTestId('discover-table').locator('tbody tr').first().waitFor({ timeout: 60_000 });
    const discoverDashes = page.locator('[data-testid="discover-table"] td').filter({ hasText: /^—$/ });
    for (const cell of await discoverDashes.all())
      expect((await cell.locator('[data-missing]').getAttribute('title'))?.length ?? 0).toBeGreaterThan(10);
    await page.close();
  });

  it('sorts Discover on any column both ways and hides a column from its chooser', async () => {
    const page = await openDiscover();
    const names = () =>
      page.locator('[data-testid="discover-table"] tbody td[data-column="name"]').allTextContents();
    const jobHeader = page.getByRole('columnheader', { name: /^Job▲?▼?$/ });
    await jobHeader.getByRole('button').click();
    await expect.poll(() => jobHeader.getAttribute('aria-sort')).toBe('ascending');
    const ascending = await names();
    expect(ascending.length).toBeGreaterThanOrEqual(10);
    expect(ascending).toEqual([...ascending].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
    await jobHeader.getByRole('button').click();
    await expect.poll(() => jobHeader.getAttribute('aria-sort')).toBe('descending');
    expect(await names()).toEqual([...ascending].reverse());

    const runsHeader = page.getByRole('columnheader', { name: /^Runs/ });
    await runsHeader.getByRole('button').click();
    await runsHeader.getByRole('button').click();
    await expect.poll(() => runsHeader.getAttribute('aria-sort')).toBe('descending');
    const runs = (
      await page.locator('[data-testid="discover-table"] tbody td[data-column="runs"]').allTextContents()
    ).map(Number);
    expect(runs).toEqual([...runs].sort((a, b) => b - a));
    expect(runs[0]).toBeGreaterThan(0);

    await page.getByText('Columns', { exact: true }).click();
    await page.getByTestId('column-chooser').getByRole('checkbox', { name: 'Job id', exact: true }).uncheck();
    await expect.poll(() => headers(page, 'discover-table')).not.toContain('Job id');
    await page.reload();
    await page.getByTestId('discover-table').locator('tbody tr').first().waitFor({ timeout: 60_000 });
    expect(await headers(page, 'discover-table')).not.toContain('Job id');
    await page.screenshot({ path: path.join(screenshotDir, 'tables-discover-1280.png'), fullPage: true });
    await page.close();
  });

  it('exports raw numbers with the units in the headers', async () => {
    const page = await openProjects();
    const [header, ...rows] = await download(page, 'Export CSV');
    expect(header).toEqual(
      expect.arrayContaining(['project', 'last_runtime_s', 'sla_s', 'cost_per_run_usd', 'auto_apply']),
    );
    const column = (name: string) => header!.indexOf(name);
    const measured = rows.find((row) => row[column('project_id')] === measuredProject);
    if (!measured) throw new Error('the measured project is not in the export');
    const runtime = Number(measured[column('last_runtime_s')]);
    expect(runtime).toBeGreaterThan(0);
    expect(Number(measured[column('sla_s')])).toBe(240 * 60);
    expect(Number(measured[column('cost_per_run_usd')])).toBeGreaterThan(0);
    expect(rows.flat().some((cell) => /^\$|\bmin\b/.test(cell))).toBe(false);
    // The other two projects have no run: their numeric cells are empty, not a dash.
    const waiting = rows.filter((row) => row[column('project_id')] !== measuredProject);
    expect(waiting.map((row) => row[column('cost_per_run_usd')])).toEqual(['', '']);

    await page.goto(`${h.server.url}/discover`);
    await page.getByTestId('discover-table').locator('tbody tr').first().waitFor({ timeout: 60_000 });
    const [discoverHeader, ...jobs] = await download(page, 'Export CSV');
    const runsAt = discoverHeader!.indexOf('runs_in_window');
    const costAt = discoverHeader!.indexOf('monthly_cost_usd');
    expect(runsAt).toBeGreaterThanOrEqual(0);
    expect(costAt).toBeGreaterThanOrEqual(0);
    expect(jobs.length).toBeGreaterThanOrEqual(10);
    for (const job of jobs) {
      expect(Number.isInteger(Number(job[runsAt]))).toBe(true);
      expect(job[costAt] === '' || Number.isFinite(Number(job[costAt]))).toBe(true);
    }
    expect(jobs.some((job) => Number(job[costAt]) > 0)).toBe(true);
    await page.close();
  });
});
