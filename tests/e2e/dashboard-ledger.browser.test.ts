import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { costKinds, type SpendReportWire } from '@setpoint/api-contract';
import { costKindLabels, spendWindow } from '@setpoint/insights';
import type { Browser, Page } from 'playwright-core';
import { type ClosedLoop, startClosedLoop } from 'setpoint/demo/closed-loop-driver';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { launchChromium, screenshotDir } from '../support/browser.js';
import { parseCsv } from '../support/csv-parse.js';
import { runCli } from '../support/run-cli.js';
import { describeFull } from '../support/tiers.js';

// One round of the demo's eleven Databricks projects and three EMR workloads: minutes on a busy machine.
vi.setConfig({ testTimeout: 600_000, hookTimeout: 600_000 });

const password = 'correct horse battery staple';
const usd = (value: number) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 2 }).format(
    value,
  );

describeFull('the demo’s money on every surface', 'Chromium (/usr/bin/chromium)', () => {
  let loop: ClosedLoop;
  let browser: Browser;
  let page: Page;
  let report: SpendReportWire;
  let key: { id: string; secret: string };

  beforeAll(async () => {
    const now = Date.now();
    // As `setpoint demo` paces it: the runs are back-filled over the last days, none after now.
    loop = await startClosedLoop({
      port: 0,
      dataDir: mkdtempSync(path.join(tmpdir(), 'setpoint-ledger-demo-')),
      seed: 1,
      emr: true,
      clockSpeed: 720,
      startTimeMs: now - 2 * 86_400_000,
      env: { SETPOINT_LOG_LEVEL: 'silent' },
    });
    await loop.round();
    const { services } = loop.server;
    await services.users.create('ada', password, 'admin');
    key = await services.apiKeys.create('ledger', 'test');
    const token = (await services.apiKeys.exchange(key.id, key.secret)).accessToken;
    const { from, to } = spendWindow(Date.now());
    const response = await fetch(`${loop.server.url}/api/v1/insights/spend?from=${from}&to=${to}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    report = (await response.json()) as SpendReportWire;
    browser = await launchChromium();
    const context = await browser.newContext({
      viewport: { width: 1440, height: 900 },
      acceptDownloads: true,
    });
    page = await context.newPage();
    await page.goto(`${loop.server.url}/login`);
    await page.getByLabel('Username').fill('ada');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/projects');
  });

  afterAll(async () => {
    await browser?.close();
    await loop?.close();
  });

  it('shows in the KPI header, the CSV and the CLI exactly the API’s sums, EMR included', async () => {
    // Both platforms spent: the EMR runs are in the total, their fee among the platform fees.
    expect(report.total.platforms.map((entry) => entry.platform).sort()).toEqual(['databricks', 'emr']);
    expect(report.total.platform_fees.map((entry) => entry.fee).sort()).toEqual(['dbu', 'emr_fee']);
    const total = report.total;

    const kpi = page.getByTestId('kpi-spend');
    await kpi.getByText(usd(total.total_usd), { exact: true }).waitFor();
    const kinds = page.getByTestId('kpi-spend-kinds');
    for (const kind of costKinds) {
      const shown = kinds.locator(`[data-kind="${kind}"]`);
      if (total.by_kind[kind] === 0) expect(await shown.count()).toBe(0);
      else expect(await shown.textContent()).toContain(`${costKindLabels[kind]} ${usd(total.by_kind[kind])}`);
    }
    expect(await page.getByTestId('kpi-spend-platforms').textContent()).toBe(
      total.platforms
        .map((entry) => `${entry.platform === 'emr' ? 'EMR' : 'Databricks'} ${usd(entry.usd)}`)
        .join(' · '),
    );
    expect(await page.getByTestId('kpi-savings').locator('strong').textContent()).toBe(
      usd(report.savings_to_date_usd),
    );
    // how the savings were measured, counted in projects: "8 projects by cost change, 1 project by …"
    expect(await page.getByTestId('kpi-savings').locator('.kpi-note').first().textContent()).toMatch(
      /^(no optimized runs yet|\d+ projects? by cost(\/GB)? change(, \d+ projects? by cost(\/GB)? change)?)$/,
    );
    await page.screenshot({ path: path.join(screenshotDir, 'ledger-projects.png'), fullPage: true });

    // The CSV's rows add up to the header's figures, kind by kind, to the cent.
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: /Export CSV/ }).click();
    const csv = parseCsv(readFileSync(await (await download).path(), 'utf8'));
    const [header, ...rows] = csv;
    const column = (name: string) => header!.indexOf(name);
    const sumOf = (name: string) => rows.reduce((sum, row) => sum + Number(row[column(name)] || 0), 0);
    expect(rows).toHaveLength(report.projects.length);
    expect(sumOf('spend_30d_usd').toFixed(2)).toBe(total.total_usd.toFixed(2));
    for (const kind of costKinds)
      expect(sumOf(`spend_30d_${kind}_usd`).toFixed(2)).toBe(total.by_kind[kind].toFixed(2));
    expect(sumOf('savings_to_date_usd').toFixed(2)).toBe(report.savings_to_date_usd.toFixed(2));

    // The CLI's TOTAL row is the API's total, in cents.
    const cli = await runCli(['spend'], {
      env: {
        SETPOINT_URL: loop.server.url,
        SETPOINT_API_KEY_ID: key.id,
        SETPOINT_API_KEY_SECRET: key.secret,
        SETPOINT_HOME: mkdtempSync(path.join(tmpdir(), 'setpoint-ledger-cli-')),
      },
    });
    expect(cli.code).toBe(0);
    const totalRow = cli.stdout.split('\n').find((line) => line.startsWith('TOTAL'));
    const cents = (value: number) =>
      `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
    expect(totalRow?.split(/\s{2,}/).slice(2)).toEqual([
      String(total.runs),
      ...costKinds.map((kind) => cents(total.by_kind[kind])),
      cents(total.total_usd),
      cents(report.savings_to_date_usd),
    ]);
  });

  it('draws every costed run in every project’s cost-per-run chart', async () => {
    for (const project of report.projects) {
      const runs = await loop.server.services.runs.list(project.project_id, { limit: 200, offset: 0 });
      const costed = runs.items.filter((run) => run.cost).length;
      if (costed === 0) continue;
      await page.goto(`${loop.server.url}/projects/${encodeURIComponent(project.project_id)}/timeline`);
      const chart = page.getByTestId('cost-chart');
      await chart.waitFor();
      expect({ project: project.name, points: await chart.getAttribute('data-points') }).toEqual({
        project: project.name,
        points: String(costed),
      });
      expect(await chart.getAttribute('data-kinds')).toContain('compute');
    }
  });
});
