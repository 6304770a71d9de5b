import { readFile } from 'node:fs/promises';
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
import { launchChromium, pageOverflow, screenshotDir, signIn } from '../support/browser.js';
import { describeFull } from '../support/tiers.js';

vi.setConfig({ testTimeout: 240_000 });

const password = 'correct horse battery staple';
/** The widths a person uses the dashboard at: a small laptop, a common one, a desktop. */
const widths = [1024, 1280, 1440] as const;

/** The box of an element that must exist. */
async function boxOf(page: Page, selector: string) {
  const box = await page.locator(selector).first().boundingBox();
  if (!box) throw new Error(`${selector} is not on the page`);
  return box;
}

/** Words of an element's text that a line break cuts in two ("m6gd.4xla / rge"). */
const wordsBrokenAcrossLines = (page: Page, selector: string) =>
  page.locator(selector).evaluateAll((elements) => {
    const broken: string[] = [];
    for (const element of elements) {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        for (const match of text.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const lines = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
          if (lines.size > 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  });

/** The y-axis labels of a chart (SVG text left of the plot), top to bottom, with their boxes. */
const yAxisLabels = (page: Page, testId: string) =>
  page.getByTestId(testId).evaluate((chart) => {
    const host = chart.getBoundingClientRect();
    return [...chart.querySelectorAll('text')]
      .map((text) => ({ text: text.textContent ?? '', box: text.getBoundingClientRect() }))
      .filter(({ text, box }) => /^\$?[\d.,]+$/.test(text.trim()) && box.right < host.left + 70)
      .map(({ text, box }) => ({ text, top: box.top, bottom: box.bottom }))
      .sort((a, b) => a.top - b.top);
  });

/**
 * Issue 35's layout findings, each at 1024, 1280 and 1440 px against an emulated workspace: the sidebar
 * runs the page's height, the Columns menu opens inside the page, names take up to three lines rather than
 * being cut, configurations break between words, the audit filters and details keep their size,
 * Discover fits 1024 px, runtime axes never print a label over another, the Notifications page does not
 * send a person to itself, a used sign-in link lands on the sign-in page, and the favicon is served.
 */
describeFull(
  'dashboard layout at 1024, 1280 and 1440 px in Chromium',
  'Debian chromium (/usr/bin/chromium)',
  () => {
    let h: Harness;
    let browser: Browser;
    const contexts = new Map<number, BrowserContext>();
    let pipeline: string[];
    let measured: string;

    beforeAll(async () => {
      h = await startHarness({ seed: 13 });
      await h.server.services.users.create('ada', password, 'admin');
      await h.server.services.users.create('demo', password, 'admin');
      // One job with two clusters (two projects of one name, told apart at the end of it), one with runs.
      await importJob(h, await jobIdByName(h.databricks, 'Two-cluster pipeline'));
      const projects = await h.server.services.projects.list({ sort: 'name', limit: 50, offset: 0 });
      pipeline = projects.items
        .filter((project) => project.name.startsWith('Two-cluster pipeline'))
        .map((project) => project.name);
      const daily = await jobIdByName(h.databricks, 'Daily aggregation');
      measured = (await importJob(h, daily, { slaMinutes: 4 })).projectId;
      for (let run = 0; run < 3; run += 1) await processedRun(h, measured, await h.databricks.runNow(daily));
      // A settings change: its audit entry holds the settings as JSON.
      await h.server.services.projects.update(
        measured,
        {
          settings: {
            slaMinutes: 5,
            allowedInstanceFamilies: ['m5', 'r5', 'c5', 'm6gd', 'r6gd'],
            // the Apply column's longest mode name, measured below
            applyMode: 'approve-learning',
          },
        },
        'user:ada',
      );
      browser = await launchChromium({ desktopScrollbars: true });
      for (const width of widths) {
        const context = await browser.newContext({ viewport: { width, height: 800 }, acceptDownloads: true });
        await signIn(context, h.server.url, 'ada', password);
        contexts.set(width, context);
      }
    });

    afterAll(async () => {
      for (const context of contexts.values()) await context.close();
      await browser?.close();
      await h?.close();
    });

    const open = async (width: number, address: string) => {
      const page = await (contexts.get(width) as BrowserContext).newPage();
      await page.goto(`${h.server.url}${address}`);
      await page.locator('main h1').first().waitFor();
      return page;
    };

    it('keeps the sidebar the whole height of a long page, its links in view when scrolled', async () => {
      for (const width of widths) {
        const page = await open(width, '/discover');
        await page.getByTestId('discover-table').locator('tbody tr').first().waitFor({ timeout: 60_000 });
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        expect(height, `${width} px: a long page`).toBeGreaterThan(800);
        expect((await boxOf(page, '.sidebar')).height, `${width} px`).toBeGreaterThanOrEqual(height - 1);
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        const projects = await page
          .getByRole('navigation', { name: 'Main' })
          .getByRole('link', { name: 'Projects' })
          .boundingBox();
        expect(projects?.y ?? -1, `${width} px: the sidebar's links stay in view`).toBeGreaterThanOrEqual(0);
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({
          path: path.join(screenshotDir, `layout-discover-${width}.png`),
          fullPage: true,
        });
        await page.close();
      }
    });

    it('opens the Columns menu inside the page, never over the sidebar', async () => {
      for (const width of widths) {
        for (const [address, table] of [
          ['/projects', 'projects-table'],
          ['/discover', 'discover-table'],
        ] as const) {
          const page = await open(width, address);
          await page.getByTestId(table).waitFor({ timeout: 60_000 });
          await page.getByText('Columns', { exact: true }).click();
          const sidebar = await boxOf(page, '.sidebar');
          // the menu places itself once open (it may move right): wait for where it settles
          await expect
            .poll(async () => (await boxOf(page, '[data-testid="column-chooser"]')).x, {
              message: `${width} px ${address}`,
            })
            .toBeGreaterThanOrEqual(sidebar.x + sidebar.width);
          const menu = await boxOf(page, '[data-testid="column-chooser"]');
          expect(menu.x + menu.width, `${width} px ${address}`).toBeLessThanOrEqual(width);
          await page.close();
        }
      }
    });

    it('fits the Projects table in its frame: at 1024 px it leaves out the columns ranked to go and says which', async () => {
      const everyColumn = [
        'Project',
        'Workspace',
        'Phase',
        'Last run',
        'Runtime / SLA',
        'SLA hit, last 10',
        'Cost / run',
        'Spend, 30 d',
        'Savings to date',
        'Insights',
        'Apply',
      ];
      for (const width of widths) {
        const page = await open(width, '/projects');
        await expect.poll(() => page.getByTestId('project-row').count()).toBe(3);
        const scroller = page.getByTestId('projects-scroller');
        // the vertical scrollbar is there (its room is kept), and nothing scrolls sideways
        expect(
          await scroller.evaluate((element) => (element as HTMLElement).offsetWidth - element.clientWidth),
          `${width} px: the table's scrollbar`,
        ).toBeGreaterThan(0);
        expect(
          await scroller.evaluate((element) => element.scrollWidth - element.clientWidth),
          `${width} px: the table scrolls sideways`,
        ).toBeLessThanOrEqual(0);
        expect(await pageOverflow(page), `${width} px`).toBeLessThanOrEqual(0);
        const shown = (await page.locator('[data-testid="projects-table"] thead th').allTextContents()).map(
          (text) => text.replace(/[↑↓▲▼]/g, '').trim(),
        );
        // a phase ("Pending setup"), a runtime over its SLA, the SLA hit rate and an apply mode ("Approve
        // learning") take two lines rather than being cut, and no word breaks inside
        for (const column of ['phase', 'runtime', 'sla_hit', 'auto_apply']) {
          for (const cell of await page
            .locator(`[data-testid="project-row"] [data-column="${column}"]`)
            .all()) {
            const cut = await cell.evaluate(
              (element) =>
                element.scrollHeight > element.clientHeight + 1 ||
                element.scrollWidth > element.clientWidth + 1,
            );
            expect(cut, `${width} px ${column}: ${await cell.textContent()}`).toBe(false);
          }
          // and no word in them breaks inside ("Approv" / "e")
          expect(
            await wordsBrokenAcrossLines(page, `[data-testid="project-row"] [data-column="${column}"]`),
            `${width} px ${column}`,
          ).toEqual([]);
        }
        // the KPI header's phase counts stay inside their card
        const card = await boxOf(page, '[data-testid="kpi-phases"]');
        for (const count of await page.locator('[data-testid="kpi-phases"] li strong').all()) {
          const box = await count.boundingBox();
          expect(
            (box?.x ?? Infinity) + (box?.width ?? 0),
            `${width} px: ${await count.textContent()}`,
          ).toBeLessThanOrEqual(card.x + card.width - 8);
        }
        const note = page.getByTestId('columns-left-out');
        if (width === 1024) {
          expect(shown).toEqual(
            expect.arrayContaining([
              'Project',
              'Phase',
              'Runtime / SLA',
              'SLA hit, last 10',
              'Cost / run',
              'Savings to date',
              'Apply',
            ]),
          );
          const leftOut = everyColumn.filter((label) => !shown.includes(label));
          expect(leftOut.length, '1024 px: some columns are left out').toBeGreaterThan(0);
          expect(leftOut).not.toContain('Insights');
          for (const label of leftOut) expect(await note.textContent()).toContain(`“${label}”`);
          // every cell of a row sits inside the frame, the last one included
          const frame = await boxOf(page, '[data-testid="projects-scroller"]');
          const last = await page
            .locator('[data-testid="project-row"]')
            .first()
            .locator('td')
            .last()
            .boundingBox();
          expect((last?.x ?? Infinity) + (last?.width ?? 0)).toBeLessThanOrEqual(frame.x + frame.width);
          // the CSV writes the layout's columns whatever the window's width, the left-out ones included
          const [download] = await Promise.all([
            page.waitForEvent('download'),
            page.getByRole('button', { name: 'Export CSV' }).click(),
          ]);
          const header = (await readFile((await download.path()) as string, 'utf8'))
            .split('\r\n')[0]!
            .split(',');
          expect(header).toEqual(expect.arrayContaining(['workspace', 'last_run_status', 'spend_30d_usd']));
          await page.screenshot({ path: path.join(screenshotDir, 'layout-projects-fit-1024.png') });
        } else {
          expect(shown, `${width} px: every default column`).toEqual(everyColumn);
          expect(await note.count(), `${width} px`).toBe(0);
        }
        await page.close();
      }
    });

    it('shows whole project and workspace names, the two clusters of one job told apart', async () => {
      expect(pipeline).toHaveLength(2);
      expect(new Set(pipeline).size).toBe(2);
      for (const width of widths) {
        const page = await open(width, '/projects');
        await expect.poll(() => page.getByTestId('project-row').count()).toBe(3);
        for (const column of ['name', 'workspace']) {
          const cells = page.locator(`[data-testid="project-row"] [data-column="${column}"]`);
          for (const cell of await cells.all()) {
            // nothing is cut: the text fits the cell's lines (up to three)
            const cut = await cell.evaluate(
              (element) =>
                element.scrollHeight > element.clientHeight + 1 ||
                element.scrollWidth > element.clientWidth + 1,
            );
            expect(cut, `${width} px ${column}: ${await cell.textContent()}`).toBe(false);
          }
        }
        const names = await page
          .locator('[data-testid="project-row"] [data-column="name"]')
          .allTextContents();
        expect(names.filter((name) => name.startsWith('Two-cluster pipeline')).sort()).toEqual(
          [...pipeline].sort(),
        );
        await page.screenshot({ path: path.join(screenshotDir, `layout-projects-${width}.png`) });
        await page.close();
      }
    });

    it('breaks an applied configuration between words, never inside one', async () => {
      for (const width of widths) {
        const page = await open(width, `/projects/${measured}/recommendation`);
        const configurations = page.locator('[data-testid="applied-configs"] code');
        await configurations.first().waitFor({ timeout: 60_000 });
        expect(
          await wordsBrokenAcrossLines(page, '[data-testid="applied-configs"] code'),
          `${width} px`,
        ).toEqual([]);
        expect(await pageOverflow(page), `${width} px`).toBeLessThanOrEqual(0);
        await page.close();
      }
    });

    it('keeps the audit filters in their columns and each detail on one line until opened', async () => {
      for (const width of widths) {
        const page = await open(width, '/audit');
        const details = page.getByTestId('audit-detail');
        await details.first().waitFor({ timeout: 30_000 });
        const to = await boxOf(page, '.audit-filters label:has(input[aria-label="To"])');
        const who = await boxOf(page, '.audit-filters label:has(select[aria-label="Who"])');
        expect(to.width, `${width} px: the To filter is as wide as the others`).toBeLessThanOrEqual(
          who.width + 1,
        );
        const settings = details.filter({ hasText: 'allowedInstanceFamilies' }).first().locator('details');
        const line = await page.evaluate(() => Number.parseFloat(getComputedStyle(document.body).lineHeight));
        expect((await settings.boundingBox())?.height ?? Infinity, `${width} px`).toBeLessThanOrEqual(
          line * 1.6,
        );
        await settings.locator('summary').click();
        await expect
          .poll(async () => (await settings.boundingBox())?.height ?? 0)
          .toBeGreaterThan(line * 1.6);
        expect(await settings.locator('dt').allTextContents()).toContain('settings');
        expect(await pageOverflow(page), `${width} px`).toBeLessThanOrEqual(0);
        await page.close();
      }
    });

    it('fits Discover and the project pages without sideways scrolling', async () => {
      for (const width of widths) {
        for (const address of [
          '/discover',
          `/projects/${measured}/timeline`,
          `/projects/${measured}/runs`,
          '/notifications',
          '/audit',
        ]) {
          const page = await open(width, address);
          await page.waitForLoadState('networkidle');
          expect(await pageOverflow(page), `${width} px ${address}`).toBeLessThanOrEqual(0);
          if (address.startsWith('/projects/')) {
            // the project's tab strip scrolls sideways at most: no vertical scrollbar beside the tabs
            expect(
              await page.locator('nav.tabs').evaluate((tabs) => tabs.scrollHeight - tabs.clientHeight),
              `${width} px ${address}: the tabs`,
            ).toBeLessThanOrEqual(0);
          }
          if (address === '/discover') {
            // the whole table in view, not scrolled inside its frame either
            const frame = page.locator('.table-frame');
            await frame.locator('tbody tr').first().waitFor({ timeout: 60_000 });
            expect(
              await frame.evaluate((element) => element.scrollWidth - element.clientWidth),
              `${width} px: Discover's table`,
            ).toBeLessThanOrEqual(0);
          }
          await page.close();
        }
      }
    });

    it("keeps a run's date and figures on one line each in the Runs table, which fits its page", async () => {
      for (const width of widths) {
        const page = await open(width, `/projects/${measured}/runs`);
        const rows = page.getByTestId('runs-table').locator('tbody tr');
        await rows.first().waitFor();
        const linesPerCell = await rows.evaluateAll((all) =>
          all.flatMap((row) =>
            [...row.querySelectorAll('td')]
              .filter((cell, index) => index === 0 || cell.classList.contains('num'))
              .map((cell) => {
                // the lines the cell's words sit on: text fragments whose tops are more than 8 px apart
                const tops: number[] = [];
                const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
                for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                  const range = document.createRange();
                  range.selectNodeContents(node);
                  for (const rect of range.getClientRects()) if (rect.width > 0) tops.push(rect.top);
                }
                tops.sort((a, b) => a - b);
                const lines = tops.filter(
                  (top, index) => index === 0 || top - (tops[index - 1] as number) > 8,
                );
                return { text: cell.textContent?.trim() ?? '', lines: lines.length };
              }),
          ),
        );
        expect(linesPerCell.length, `${width} px: cells measured`).toBeGreaterThan(0);
        expect(
          linesPerCell.filter((cell) => cell.lines > 1),
          `${width} px: cells on more than one line`,
        ).toEqual([]);
        expect(await pageOverflow(page), `${width} px: the Runs page`).toBeLessThanOrEqual(0);
        await page.close();
      }
    });

    it('draws the runtime axis with its labels apart, the top one on a tick', async () => {
      for (const width of widths) {
        const page = await open(width, `/projects/${measured}/timeline`);
        const chart = page.getByTestId('runtime-chart');
        await chart.locator('svg').waitFor();
        const labels = await yAxisLabels(page, 'runtime-chart');
        expect(labels.length, `${width} px`).toBeGreaterThanOrEqual(3);
        for (let index = 1; index < labels.length; index += 1)
          expect(
            labels[index]!.top,
            `${width} px: ${labels[index - 1]!.text} and ${labels[index]!.text}`,
          ).toBeGreaterThanOrEqual(labels[index - 1]!.bottom);
        const values = labels.map((label) => Number(label.text.replace(/[$,]/g, ''))).reverse();
        const steps = values.slice(1).map((value, index) => value - values[index]!);
        expect(
          new Set(steps.map((step) => step.toFixed(6))).size,
          `${width} px: even steps ${values.join(', ')}`,
        ).toBe(1);
        await page.close();
      }
    });

    it('counts the jobs per day on Discover in whole jobs', async () => {
      const page = await open(1280, '/discover');
      const chart = page.getByRole('img', { name: 'Job count and core hours per day' });
      await chart.locator('svg text').first().waitFor();
      const jobTicks = await chart.evaluate((host) => {
        const left = host.getBoundingClientRect().left;
        return [...host.querySelectorAll('text')]
          .filter((text) => text.getBoundingClientRect().right < left + 70)
          .map((text) => (text.textContent ?? '').trim())
          .filter((text) => /^[\d.,]+$/.test(text));
      });
      expect(jobTicks.length).toBeGreaterThanOrEqual(2);
      expect(jobTicks.filter((tick) => !Number.isInteger(Number(tick)))).toEqual([]);
      await page.close();
    });

    it('tells a person on the Notifications page to add a destination below, not on the Notifications page', async () => {
      const page = await open(1280, '/notifications');
      const hint = page.getByTestId('no-destination-hint');
      await hint.waitFor();
      expect(await hint.textContent()).not.toMatch(/Notifications page/);
      expect(await hint.getByRole('link').getAttribute('href')).toBe('#destinations-title');
      await page.goto(`${h.server.url}/projects/${measured}/alerts`);
      await page.getByTestId('no-destination-hint').waitFor();
      expect(await page.getByTestId('no-destination-hint').textContent()).toMatch(/Notifications page/);
      await page.close();
    });

    it('lands a reused demo sign-in link on the sign-in page with a readable message, and serves the favicon', async () => {
      const link = `${h.server.url}/api/v1/session/demo?token=${h.server.services.demoSignIn.issue()}`;
      const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
      const first = await context.newPage();
      await first.goto(link);
      await first.waitForURL('**/projects');
      await first.close();
      const other = await browser.newContext({ viewport: { width: 1024, height: 800 } });
      const page = await other.newPage();
      const missing: string[] = [];
      page.on('response', (response) => {
        if (response.status() === 404) missing.push(response.url());
      });
      await page.goto(link);
      await page.waitForURL('**/login?notice=demo-link-used');
      const notice = page.getByTestId('link-used');
      await notice.waitFor();
      expect(await notice.textContent()).toMatch(/already used/);
      expect(await page.locator('body').textContent()).not.toContain('{"error"');
      await page.getByLabel('Username').waitFor();
      const icon = await page.locator('link[rel="icon"]').getAttribute('href');
      const favicon = await fetch(new URL(icon ?? '/favicon.ico', h.server.url));
      expect(favicon.status).toBe(200);
      expect(favicon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      expect(missing).toEqual([]);
      await page.screenshot({ path: path.join(screenshotDir, 'layout-link-used-1024.png') });
      await context.close();
      await other.close();
    });
  },
);
