import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, screenshotDir } from '../support/browser.js';
import { runCli } from '../support/run-cli.js';
import { type SpawnedServer, spawnSetpoint } from '../support/spawn-server.js';
import { describeFull } from '../support/tiers.js';
import { connectSeedClient, type SeedClient, seedProjects } from './dashboard-seed.js';

const passwords = {
  ada: 'correct horse battery staple',
  eda: 'editor horse battery staple',
};

describeFull('the admin pages, in Chromium', 'Debian chromium (/usr/bin/chromium)', () => {
  let server: SpawnedServer;
  let browser: Browser;
  let client: SeedClient;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-admin-browser-'));
    server = await spawnSetpoint(
      ['serve', '--port', '0', '--data-dir', dataDir],
      /listening on (http:\/\/\S+)/,
      {
        SETPOINT_LOG_LEVEL: 'warn',
      },
    );
    for (const [username, role] of [
      ['ada', 'admin'],
      ['eda', 'editor'],
    ] as const) {
      const created = await runCli(
        [
          'users',
          'create',
          '--username',
          username,
          '--role',
          role,
          '--password-stdin',
          '--data-dir',
          dataDir,
        ],
        { input: passwords[username] },
      );
      if (created.code !== 0) throw new Error(`setpoint users create failed: ${created.stderr}`);
    }
    client = await connectSeedClient(server.url, dataDir);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function signIn(username: keyof typeof passwords, password = passwords[username]): Promise<Page> {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      acceptDownloads: true,
    });
    const page = await context.newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Projects' }).waitFor();
    return page;
  }

  async function download(page: Page, name: string): Promise<string> {
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name }).click(),
    ]);
    const saved = await file.path();
    if (!saved) throw new Error(`the ${name} download failed: ${await file.failure()}`);
    return readFileSync(saved, 'utf8');
  }

  it('shows the audit trail to an admin, filters it and exports what it shows', async () => {
    const [orders, billing] = await seedProjects(client, ['orders-etl', 'billing-nightly']);
    await client.request('PATCH', `/api/v1/projects/${orders?.id}`, { settings: { slaMinutes: 45 } });
    await client.request('POST', `/api/v1/projects/${billing?.id}/reset`);

    const page = await signIn('ada');
    await page.getByRole('link', { name: 'Audit trail' }).click();
    const table = page.getByTestId('audit-trail');
    await expect.poll(() => table.getByRole('row').count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(5);
    const first = (await table.getByRole('row').nth(1).textContent()) ?? '';
    expect(first).toMatch(/api-key:\S+\s*reset\s*billing-nightly/);

    await page.getByLabel('Project', { exact: true }).selectOption({ label: 'orders-etl' });
    await expect.poll(() => page.getByTestId('audit-count').textContent()).toBe('Entries 1–2 of 2');
    const rows = await table.getByRole('row').allTextContents();
    expect(rows.slice(1).map((row) => /(create|update)/.exec(row)?.[1])).toEqual(['update', 'create']);
    expect(page.url()).toContain(`project_id=${orders?.id}`);

    const csv = await download(page, 'Export CSV');
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'time_utc,time_ms,actor,action,entity,entity_id,project_id,project_name,detail_json',
    );
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z,\\d+,api-key:\\S+,update,project,${orders?.id},${orders?.id},orders-etl,`,
      ),
    );

    await page.getByLabel('Action', { exact: true }).selectOption('create');
    await expect.poll(() => page.getByTestId('audit-count').textContent()).toBe('Entries 1–1 of 1');
    const json = JSON.parse(await download(page, 'Export JSON')) as {
      total: number;
      items: Array<{ action: string }>;
    };
    expect(json.total).toBe(1);
    expect(json.items[0]?.action).toBe('create');

    // A day range that holds nothing.
    await page.getByLabel('To', { exact: true }).fill('2020-01-01');
    await expect.poll(() => page.getByTestId('audit-count').textContent()).toBe('No entries match');
    await page.screenshot({ path: path.join(screenshotDir, 'audit-trail.png') });
    await page.context().close();
  }, 120_000);

  it('hides the audit trail from an editor, and the API refuses it', async () => {
    const page = await signIn('eda');
    await expect(page.getByRole('link', { name: 'Audit trail' }).count()).resolves.toBe(0);
    await page.goto(`${server.url}/audit`);
    await expect
      .poll(() => page.getByRole('alert').first().textContent(), { timeout: 20_000 })
      .toMatch(/only admins may read the organization's audit trail/);
    await page.context().close();
  }, 120_000);
  it('lets an admin add a user, change their role, disable, reset and delete them, never the last admin', async () => {
    const page = await signIn('ada');
    await page.getByRole('link', { name: 'Users' }).click();
    const users = page.getByTestId('users');
    await page.getByLabel('Username').fill('newcomer');
    await page.getByLabel('Role', { exact: true }).selectOption('editor');
    await page.getByRole('button', { name: 'Add user' }).click();
    const generated = (await page.getByTestId('new-password-value').textContent()) ?? '';
    expect(generated).toMatch(/^[\w-]{20}$/);
    const row = users.locator('tr[data-username="newcomer"]');
    await expect.poll(() => row.textContent()).toMatch(/newcomer.*active/);

    // The password works until an admin resets it.
    const newcomer = await signIn('newcomer' as keyof typeof passwords, generated);
    await page.getByRole('button', { name: 'Done' }).click();
    await row.getByRole('combobox', { name: 'Role of newcomer' }).selectOption('viewer');
    await expect
      .poll(
        async () =>
          (await client.request<{ items: Array<{ username: string; role: string }> }>('GET', '/api/v1/users'))
            .items,
      )
      .toContainEqual(expect.objectContaining({ username: 'newcomer', role: 'viewer' }));
    await row.getByRole('button', { name: 'Disable' }).click();
    await expect.poll(() => row.textContent()).toMatch(/disabled/);
    await newcomer.reload();
    await newcomer.getByRole('button', { name: 'Sign in' }).waitFor();
    await newcomer.context().close();
    await row.getByRole('button', { name: 'Enable' }).click();
    await expect.poll(() => row.textContent()).toMatch(/active/);
    await row.getByRole('button', { name: 'Reset password' }).click();
    const reset = (await page.getByTestId('new-password-value').textContent()) ?? '';
    expect(reset).not.toBe(generated);
    await page.getByRole('button', { name: 'Done' }).click();

    // The last admin stays.
    await users.locator('tr[data-username="ada"]').getByRole('combobox').selectOption('editor');
    await expect
      .poll(() => page.getByRole('alert').first().textContent())
      .toMatch(/no admin who can sign in/);
    await expect
      .poll(() => users.locator('tr[data-username="ada"]').getByRole('combobox').inputValue())
      .toBe('admin');

    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete user' }).click();
    await expect.poll(() => row.count()).toBe(0);
    await page.screenshot({ path: path.join(screenshotDir, 'users.png') });
    await page.context().close();
  }, 120_000);

  it('keeps user management from an editor: no menu entry, and the API answers 403', async () => {
    const page = await signIn('eda');
    await expect(page.getByRole('link', { name: 'Users' }).count()).resolves.toBe(0);
    await page.goto(`${server.url}/users`);
    await expect
      .poll(() => page.getByRole('alert').first().textContent(), { timeout: 20_000 })
      .toMatch(/only admins may manage users/);
    await page.context().close();
  }, 120_000);

  it("changes a user's own password: other sessions end, this one stays", async () => {
    const here = await signIn('eda');
    const elsewhere = await signIn('eda');
    await here.getByRole('link', { name: 'eda' }).click();
    await here.getByLabel('Current password').fill('not my password');
    await here.getByLabel('New password', { exact: true }).fill('a fresh editor passphrase');
    await here.getByLabel('New password again').fill('a fresh editor passphrase');
    await here.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => here.getByRole('alert').textContent()).toMatch(/current password is not right/);

    await here.getByLabel('Current password').fill(passwords.eda);
    await here.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => here.getByRole('status').last().textContent()).toMatch(/Password changed/);
    await here.getByRole('link', { name: 'Projects' }).click();
    await here.getByRole('heading', { name: 'Projects' }).first().waitFor();
    expect(here.url()).toMatch(/\/projects$/);
    await elsewhere.reload();
    await elsewhere.getByRole('button', { name: 'Sign in' }).waitFor();
    await elsewhere.context().close();
    const again = await signIn('eda', 'a fresh editor passphrase');
    await again.context().close();
    await here.context().close();
  }, 120_000);
});
