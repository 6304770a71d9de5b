import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type RunningEmulator, startEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import { defaultServicePrincipals } from '@setpoint/databricks-emulator/server/oauth';
import type { Browser, Page } from 'playwright-core';
import { loadConfig } from 'setpoint/config/load-config';
import { type RunningServer, startServer } from 'setpoint/server/start-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.js';
import { describeFull } from '../support/tiers.js';

const password = 'correct horse battery staple';
const m2m = defaultServicePrincipals.find((principal) => principal.kind === 'databricks')!;
const entra = defaultServicePrincipals.find((principal) => principal.kind === 'entra')!;

/** The workspace form adds a workspace with a service principal and rotates its sign-in. */
describeFull(
  'dashboard: workspace sign-in with service principals in Chromium',
  'Debian chromium (/usr/bin/chromium)',
  () => {
    let emulator: RunningEmulator;
    let server: RunningServer;
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      emulator = await startEmulator({ port: 0, clockSpeed: 0, rateLimitScale: 0 });
      const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-auth-ui-'));
      server = await startServer(
        loadConfig(
          { dataDir, port: 0 },
          {
            SETPOINT_LOG_LEVEL: 'warn',
            SETPOINT_RECONCILE_INTERVAL_SECONDS: '0',
            SETPOINT_OUTBOUND_ALLOW_LIST: '127.0.0.1',
          },
        ),
      );
      await server.services.users.create('ada', password, 'admin');
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
      await page.goto(`${server.url}/login`);
      await page.getByLabel('Username').fill('ada');
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/projects');
    });

    afterAll(async () => {
      await browser?.close();
      await server?.stop();
      await emulator?.close();
    });

    const accessLine = (name: string) =>
      page.getByTestId('access-check').locator('li', { hasText: name }).first();

    it('adds a workspace with OAuth M2M, then rotates it to an Entra ID service principal', async () => {
      await page.goto(`${server.url}/workspaces`);
      await page.getByRole('button', { name: 'Add workspace' }).click();
      const form = page.getByRole('form', { name: 'Add workspace' });
      await form.getByLabel('Name').fill('emulated');
      await form.getByLabel('Host').fill(emulator.url);
      await form.getByLabel('Sign in with').selectOption('oauth-m2m');
      await form.getByLabel('Client id').fill(m2m.clientId);
      // a secret the workspace refuses: the form says why and nothing is registered
      await form.getByLabel('OAuth secret').fill('a-revoked-secret');
      await form.getByRole('button', { name: 'Add and check access' }).click();
      await expect
        .poll(() => form.getByRole('alert').textContent(), { timeout: 20_000 })
        .toMatch(
          /authenticate failed: the workspace refused the service principal’s OAuth secret: invalid_client.*nothing was registered/,
        );
      expect(await server.services.workspaces.list()).toEqual([]);
      await form.getByLabel('OAuth secret').fill(m2m.clientSecret);
      await form.getByRole('button', { name: 'Add and check access' }).click();
      await expect
        .poll(() => accessLine('authenticate').textContent(), { timeout: 20_000 })
        .toMatch(/OAuth M2M/);
      await expect.poll(() => accessLine('list jobs').getAttribute('class')).toBe('check-ok');

      await page.getByRole('button', { name: 'Edit' }).first().click();
      const edit = page.getByRole('form', { name: 'Edit workspace' });
      await edit.getByLabel('Sign in with').selectOption('azure-client-secret');
      await edit.getByLabel('Tenant id').fill(entra.tenantId!);
      await edit.getByLabel('Client id').fill(entra.clientId);
      await edit.getByLabel('Client secret').fill('a-wrong-secret');
      await edit.getByLabel('Authority host').fill(emulator.url);
      await edit.getByRole('button', { name: 'Save and check access' }).click();
      await expect
        .poll(() => accessLine('authenticate').getAttribute('class'), { timeout: 20_000 })
        .toBe('check-fail');
      await expect.poll(() => accessLine('authenticate').textContent()).toMatch(/invalid_client/);

      await page.getByRole('button', { name: 'Edit' }).first().click();
      const again = page.getByRole('form', { name: 'Edit workspace' });
      await again.getByLabel('Sign in with').selectOption('azure-client-secret');
      await again.getByLabel('Tenant id').fill(entra.tenantId!);
      await again.getByLabel('Client id').fill(entra.clientId);
      await again.getByLabel('Client secret').fill(entra.clientSecret);
      await again.getByLabel('Authority host').fill(emulator.url);
      await again.getByRole('button', { name: 'Save and check access' }).click();
      await expect
        .poll(() => accessLine('authenticate').textContent(), { timeout: 20_000 })
        .toMatch(/Entra ID/);
      await expect.poll(() => accessLine('authenticate').getAttribute('class')).toBe('check-ok');
      expect(await page.content()).not.toContain(entra.clientSecret);
    });
  },
);
