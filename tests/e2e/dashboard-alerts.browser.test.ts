import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { webhookSignature } from 'setpoint/service/alerts/alert-delivery';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '../service/support/service-harness.js';
import { launchChromium, screenshotDir } from '../support/browser.js';
import { runCli } from '../support/run-cli.js';
import { type SpawnedServer, spawnSetpoint } from '../support/spawn-server.js';
import { describeFull } from '../support/tiers.js';
import {
  connectSeedClient,
  type SeedClient,
  seedProjects,
  seedRuns,
  waitForPipeline,
} from './dashboard-seed.js';

const password = 'correct horse battery staple';
const signingSecret = 'whsec-browser-0123456789';

describeFull('an alert rule firing, in Chromium', 'Debian chromium (/usr/bin/chromium)', () => {
  let server: SpawnedServer;
  let browser: Browser;
  let client: SeedClient;
  let receiver: Server;
  const received: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
  /** What `/failing` got; it answers 503 while `failing` is true, then 200. */
  const failingHits: { headers: IncomingHttpHeaders; body: string; status: number }[] = [];
  let failing = true;
  let receiverUrl = '';

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        if (request.url === '/failing') {
          const status = failing ? 503 : 200;
          failingHits.push({ headers: request.headers, body, status });
          response.statusCode = status;
          response.end(failing ? 'busy' : 'ok');
          return;
        }
        received.push({ path: request.url ?? '', headers: request.headers, body });
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address();
    receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-alerts-browser-'));
    server = await spawnSetpoint(
      ['serve', '--port', '0', '--data-dir', dataDir],
      /listening on (http:\/\/\S+)/,
      {
        SETPOINT_LOG_LEVEL: 'warn',
        SETPOINT_OUTBOUND_ALLOW_LIST: '127.0.0.1',
        SETPOINT_ALERT_INTERVAL_SECONDS: '1',
        // Retries after 1, 2, 4 and 8 s: a failing destination is parked within the test.
        SETPOINT_ALERT_RETRY_BASE_SECONDS: '1',
      },
    );
    const created = await runCli(
      ['users', 'create', '--username', 'ada', '--role', 'admin', '--password-stdin', '--data-dir', dataDir],
      { input: password },
    );
    if (created.code !== 0) throw new Error(`setpoint users create failed: ${created.stderr}`);
    client = await connectSeedClient(server.url, dataDir);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    receiver?.close();
  });

  it('sends a missed SLA to a signed webhook and lists it on the notifications page', async () => {
    const [project] = await seedProjects(client, ['nightly-billing'], () => ({ slaMinutes: 0.5 }));
    const destination = await client.request<{ id: string }>('POST', '/api/v1/alerts/destinations', {
      kind: 'webhook',
      name: 'on-call hook',
      url: `${receiverUrl}/setpoint`,
      signing_secret: signingSecret,
    });
    await client.request('POST', '/api/v1/alerts/rules', {
      event: 'sla_missed',
      destination_id: destination.id,
    });
    await seedRuns(client, project?.id ?? '', { from: 0, to: 1, of: 1 });
    await waitForPipeline(client, project?.id ?? '', 1);

    const [hook] = await eventually(
      async () => (received.length > 0 ? received : undefined),
      60_000,
      'the webhook',
    );
    expect(hook?.headers['x-setpoint-signature']).toBe(webhookSignature(hook?.body ?? '', signingSecret));
    expect(JSON.parse(hook?.body ?? '{}')).toMatchObject({ event: 'sla_missed', project_id: project?.id });

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${server.url}/login`);
    await page.getByLabel('Username').fill('ada');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Notifications' }).click();
    const row = page.getByTestId('notifications').getByRole('row').nth(1);
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toMatch(/SLA missed/);
    const text = (await row.textContent()) ?? '';
    expect(text).toMatch(/nightly-billing: run took .* over its 0\.5 min SLA/);
    expect(text).toContain('on-call hook');
    expect(text).toContain('Sent');
    await page.screenshot({ path: path.join(screenshotDir, 'notifications.png') });
    await page.close();
  }, 240_000);

  it('edits a rule in the dashboard, parks what a failing destination refuses and sends it again from the list', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/login`);
    await page.getByLabel('Username').fill('ada');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Notifications' }).click();

    // A second destination, added in the dashboard.
    await page.getByRole('button', { name: 'Add destination' }).click();
    const newDestination = page.getByRole('form', { name: 'New destination' });
    await newDestination.getByLabel('Destination name').fill('flaky hook');
    await newDestination.getByLabel('URL').fill(`${receiverUrl}/failing`);
    await newDestination.getByLabel('Signing secret').fill(signingSecret);
    await newDestination.getByRole('button', { name: 'Save destination' }).click();
    await expect
      .poll(() => page.getByTestId('alert-destinations').textContent(), { timeout: 20_000 })
      .toContain('flaky hook');
    const destinations = await client.request<{ items: { id: string; name: string; target: string }[] }>(
      'GET',
      '/api/v1/alerts/destinations',
    );
    const flaky = destinations.items.find((item) => item.name === 'flaky hook');
    expect(flaky?.target).toBe(receiverUrl);

    // The rule of the first test: off, on again, then pointed at the new destination.
    const ruleRow = page.getByTestId('alert-rules').getByRole('row').nth(1);
    await ruleRow.getByRole('button', { name: 'Disable' }).click();
    await expect.poll(() => ruleRow.textContent(), { timeout: 20_000 }).toContain('Off');
    const rules = () =>
      client.request<{ items: { id: string; enabled: boolean; destination_id: string }[] }>(
        'GET',
        '/api/v1/alerts/rules',
      );
    expect((await rules()).items[0]?.enabled).toBe(false);
    await ruleRow.getByRole('button', { name: 'Edit' }).click();
    const editRule = page.getByRole('form', { name: 'Edit rule' });
    await editRule.getByLabel('Send to').selectOption({ label: 'flaky hook' });
    await editRule.getByLabel('Enabled').check();
    await editRule.getByRole('button', { name: 'Save rule' }).click();
    await expect.poll(() => ruleRow.textContent(), { timeout: 20_000 }).toMatch(/flaky hook\s*On/);
    expect((await rules()).items[0]).toMatchObject({ enabled: true, destination_id: flaky?.id });

    // A run over its SLA fires the edited rule; the destination answers 503 until it is parked.
    const [project] = await seedProjects(client, ['weekly-ledger'], () => ({ slaMinutes: 0.5 }));
    await seedRuns(client, project?.id ?? '', { from: 0, to: 1, of: 1 });
    await waitForPipeline(client, project?.id ?? '', 1);
    const parked = await eventually(
      async () => {
        const list = await client.request<{ items: { id: string; status: string; project_id: string }[] }>(
          'GET',
          '/api/v1/notifications',
        );
        return list.items.find((item) => item.project_id === project?.id && item.status === 'PARKED');
      },
      120_000,
      'the notification to be parked',
    );
    expect(failingHits.length).toBe(5);
    expect(failingHits.every((hit) => hit.status === 503)).toBe(true);

    // The destination recovers; an admin sends the parked notification again from the list.
    failing = false;
    await page.reload();
    const parkedRow = page.locator(`tr[data-notification-id="${parked.id}"]`);
    await expect
      .poll(() => parkedRow.textContent(), { timeout: 20_000 })
      .toMatch(/Parked \(gave up\) after 5 attempts: the destination answered HTTP 503/);
    await parkedRow.getByRole('button', { name: 'Send again' }).click();
    await expect.poll(() => parkedRow.textContent(), { timeout: 20_000 }).toMatch(/Sent after 6 attempts/);
    expect(await parkedRow.getByRole('button', { name: 'Send again' }).count()).toBe(0);
    const delivered = failingHits.at(-1);
    expect(delivered?.status).toBe(200);
    expect(delivered?.headers['x-setpoint-signature']).toBe(
      webhookSignature(delivered?.body ?? '', signingSecret),
    );
    expect(JSON.parse(delivered?.body ?? '{}')).toMatchObject({ id: parked.id, event: 'sla_missed' });
    await page.screenshot({ path: path.join(screenshotDir, 'notifications-retry.png') });
    await page.close();
  }, 300_000);

  it('edits a destination in the dashboard: a new name, URL and signing secret, never shown again, used by the next notification', async () => {
    const movedSecret = 'whsec-moved-9876543210abc';
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/login`);
    await page.getByLabel('Username').fill('ada');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Notifications' }).click();

    const destinations = await client.request<{ items: { id: string; name: string }[] }>(
      'GET',
      '/api/v1/alerts/destinations',
    );
    const flaky = destinations.items.find((item) => item.name === 'flaky hook');
    const row = page.locator(`tr[data-destination-id="${flaky?.id}"]`);
    await row.getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: 'Edit destination' });
    // What is shown again is prefilled; the URL and secret are not (write-only).
    expect(await form.getByLabel('Destination name').inputValue()).toBe('flaky hook');
    expect(await form.getByLabel('URL').inputValue()).toBe('');
    expect(await form.getByLabel('Signing secret').inputValue()).toBe('');
    expect(await form.getByLabel('Kind').isDisabled()).toBe(true);
    expect(await page.content()).not.toContain('/failing');

    // A bad URL is refused with the API's reason, and nothing changes. A new URL always comes with a
    // new signing secret (the stored one is never sent to a new target), so the refusal is the address's.
    await form.getByLabel('URL').fill('http://169.254.169.254/latest');
    await form.getByLabel('Signing secret').fill('whsec-never-stored-0000000000');
    await form.getByRole('button', { name: 'Save destination' }).click();
    await expect.poll(() => form.getByRole('alert').textContent(), { timeout: 20_000 }).toMatch(/169\.254/);

    await form.getByLabel('Destination name').fill('steady hook');
    await form.getByLabel('URL').fill(`${receiverUrl}/moved`);
    await form.getByLabel('Signing secret').fill(movedSecret);
    await form.getByLabel('At most per hour').fill('45');
    await form.getByRole('button', { name: 'Save destination' }).click();
    await expect
      .poll(() => row.textContent(), { timeout: 20_000 })
      .toMatch(/steady hook.*45.*changed .* by user:/);
    const after = await client.request<{
      items: { id: string; name: string; target: string; max_per_hour: number }[];
    }>('GET', '/api/v1/alerts/destinations');
    expect(after.items.find((item) => item.id === flaky?.id)).toMatchObject({
      name: 'steady hook',
      target: receiverUrl,
      max_per_hour: 45,
    });
    const audit = await client.request<{
      items: { action: string; entity: string; detail: Record<string, unknown> }[];
    }>('GET', '/api/v1/audit?entity=alert_destination');
    const entry = audit.items.find((item) => item.entity === 'alert_destination' && item.action === 'update');
    expect(entry?.detail).toMatchObject({ credentials_replaced: ['url', 'signing_secret'] });
    expect(JSON.stringify(audit)).not.toContain(movedSecret);

    // The rule pointed at it fires on the next run over its SLA: the new URL, signed with the new secret.
    const [project] = await seedProjects(client, ['monthly-close'], () => ({ slaMinutes: 0.5 }));
    await seedRuns(client, project?.id ?? '', { from: 0, to: 1, of: 1 });
    await waitForPipeline(client, project?.id ?? '', 1);
    const hook = await eventually(
      async () => received.find((item) => item.path === '/moved'),
      60_000,
      'the edited webhook',
    );
    expect(hook.headers['x-setpoint-signature']).toBe(webhookSignature(hook.body, movedSecret));
    expect(JSON.parse(hook.body)).toMatchObject({ event: 'sla_missed', project_id: project?.id });
    await page.screenshot({ path: path.join(screenshotDir, 'alert-destination-edit.png') });
    await page.close();
  }, 240_000);

  it('lists the rules that cover a project on its Alerts tab and adds, edits and deletes one for that project only', async () => {
    const projects = await client.request<{ items: { id: string; name: string }[] }>(
      'GET',
      '/api/v1/projects',
    );
    const project = projects.items.find((item) => item.name === 'monthly-close');
    const other = projects.items.find((item) => item.name === 'weekly-ledger');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/login`);
    await page.getByLabel('Username').fill('ada');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/projects/);
    await page.goto(`${server.url}/projects/${project?.id}/alerts`);

    // The organization-wide rule of the first test is listed, read-only here.
    const table = page.getByTestId('alert-rules');
    await expect.poll(() => table.textContent(), { timeout: 20_000 }).toMatch(/Every project\s*SLA missed/);
    expect(await table.getByRole('button', { name: 'Edit' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Add rule' }).click();
    const newRule = page.getByRole('form', { name: 'New rule' });
    expect(await newRule.getByLabel('Scope').isDisabled()).toBe(true);
    expect(await newRule.getByLabel('Scope').textContent()).toBe('monthly-close');
    await newRule.getByLabel('Event').selectOption('cost_spike');
    await newRule.getByLabel('Send to').selectOption({ label: 'steady hook' });
    await newRule.getByLabel('Threshold (%)').fill('30');
    await newRule.getByRole('button', { name: 'Save rule' }).click();
    const projectRow = table.getByRole('row').filter({ hasText: 'Cost spike' });
    await expect.poll(() => projectRow.textContent(), { timeout: 20_000 }).toMatch(/monthly-close.*≥ 30%/);
    const rules = async (projectId?: string) =>
      (
        await client.request<{
          items: {
            id: string;
            project_id: string | null;
            event: string;
            params: { threshold_pct: number };
          }[];
        }>('GET', projectId ? `/api/v1/alerts/rules?project_id=${projectId}` : '/api/v1/alerts/rules')
      ).items;
    const created = (await rules()).find((rule) => rule.event === 'cost_spike');
    expect(created).toMatchObject({ project_id: project?.id, params: { threshold_pct: 30 } });
    // Another project's tab does not list it.
    expect((await rules(other?.id)).some((rule) => rule.id === created?.id)).toBe(false);

    await projectRow.getByRole('button', { name: 'Edit' }).click();
    const editRule = page.getByRole('form', { name: 'Edit rule' });
    await editRule.getByLabel('Threshold (%)').fill('45');
    await editRule.getByRole('button', { name: 'Save rule' }).click();
    await expect.poll(() => projectRow.textContent(), { timeout: 20_000 }).toMatch(/≥ 45%/);
    expect((await rules()).find((rule) => rule.id === created?.id)?.params.threshold_pct).toBe(45);
    await page.screenshot({ path: path.join(screenshotDir, 'project-alerts.png') });

    await projectRow.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete rule' }).click();
    await expect
      .poll(async () => (await rules()).some((rule) => rule.id === created?.id), { timeout: 20_000 })
      .toBe(false);
    await expect.poll(() => table.textContent(), { timeout: 20_000 }).not.toContain('Cost spike');
    expect(await table.textContent()).toMatch(/Every project/);
    await page.close();
  }, 240_000);
});
