import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, screenshotDir } from '../support/browser.js';
import { runCli } from '../support/run-cli.js';
import { type SpawnedServer, spawnSetpoint } from '../support/spawn-server.js';
import { describeFull } from '../support/tiers.js';
import { connectSeedClient, type SeededProject, seedProjects } from './dashboard-seed.js';

const password = 'correct horse battery staple';

describeFull('dashboard sign-in and roles in Chromium', 'Debian chromium (/usr/bin/chromium)', () => {
  let server: SpawnedServer;
  let browser: Browser;
  let project: SeededProject;
  /** False when this server has no dashboard sign-in; the tests then say so and skip. */
  let sessions: boolean;

  beforeAll(async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-sign-in-'));
    server = await spawnSetpoint(
      ['serve', '--port', '0', '--data-dir', dataDir],
      /listening on (http:\/\/\S+)/,
      {
        SETPOINT_LOG_LEVEL: 'warn',
      },
    );
    sessions = (await fetch(`${server.url}/api/v1/session`)).status !== 404;
    if (!sessions) return;
    for (const [username, role] of [
      ['ada', 'admin'],
      ['vera', 'viewer'],
    ]) {
      const created = await runCli(
        [
          'users',
          'create',
          '--username',
          username!,
          '--role',
          role!,
          '--password-stdin',
          '--data-dir',
          dataDir,
        ],
        { input: password },
      );
      if (created.code !== 0) throw new Error(`setpoint users create failed: ${created.stderr}`);
    }
    const client = await connectSeedClient(server.url, dataDir);
    project = (await seedProjects(client, ['billing-rollup'], () => ({ slaMinutes: 20 })))[0]!;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const signIn = async (page: Page, username: string, secret: string) => {
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };

  it('sends a signed-out person to sign in and back to the page they asked for', async (test) => {
    if (!sessions) test.skip('this server has no /api/v1/session');
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/projects/${project.id}/settings`);
    await page.waitForURL('**/login?next=*');
    await page.screenshot({ path: path.join(screenshotDir, 'sign-in.png') });

    await signIn(page, 'ada', 'wrong password');
    const error = page.getByRole('alert');
    await error.waitFor();
    expect((await error.textContent())?.length).toBeGreaterThan(5);
    expect(await error.textContent()).not.toContain('{');

    await signIn(page, 'ada', password);
    await page.waitForURL(`**/projects/${project.id}/settings`);
    // A change needs the CSRF header the dashboard adds from its cookie; the server refuses it otherwise.
    await page.getByLabel('Runtime SLA (minutes)').fill('25');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/login*');
    await context.close();
  });

  it('shows Settings and Discover without errors, saying what this server does not offer', async (test) => {
    if (!sessions) test.skip('this server has no /api/v1/session');
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/login`);
    await signIn(page, 'ada', password);
    await page.waitForURL('**/projects');
    for (const [address, heading] of [
      ['/settings', 'API keys'],
      ['/discover', 'Discover'],
    ] as const) {
      await page.goto(`${server.url}${address}`);
      await page.getByRole('heading', { name: heading }).first().waitFor();
      await page.waitForLoadState('networkidle');
      // Either the feature works or the page says the server lacks it; never a raw failure.
      expect(await page.getByRole('alert').count()).toBe(0);
      await page.screenshot({
        path: path.join(screenshotDir, `page${address.replace('/', '-')}.png`),
        fullPage: true,
      });
    }
    await context.close();
  });

  it('shows a viewer the settings without any way to change them', async (test) => {
    if (!sessions) test.skip('this server has no /api/v1/session');
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/login`);
    await signIn(page, 'vera', password);
    await page.waitForURL('**/projects');
    await page.goto(`${server.url}/projects/${project.id}/settings`);
    await page.getByText('changing them needs the editor or admin role').waitFor();
    expect(await page.getByLabel('Runtime SLA (minutes)').isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Save settings' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete project' }).count()).toBe(0);
    await page.goto(`${server.url}/projects/${project.id}/recommendation`);
    await page.getByRole('heading', { name: 'Latest recommendation' }).waitFor();
    expect(await page.getByRole('button', { name: 'Apply', exact: true }).count()).toBe(0);
    await page.screenshot({ path: path.join(screenshotDir, 'viewer-recommendation.png') });
    await context.close();
  });
});
