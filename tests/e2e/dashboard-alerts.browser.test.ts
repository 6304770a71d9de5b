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
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-alerts-browser-'));
    server = await spawnSetpoint(
      ['serve', '--port', '0', '--data-dir', dataDir],
      /listening on (http:\/\/\S+)/,
      {
        SETPOINT_LOG_LEVEL: 'warn',
        SETPOINT_OUTBOUND_ALLOW_LIST: '127.0.0.1',
        SETPOINT_ALERT_INTERVAL_SECONDS: '1',
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
    const address = receiver.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const destination = await client.request<{ id: string }>('POST', '/api/v1/alerts/destinations', {
      kind: 'webhook',
      name: 'on-call hook',
      url: `http://127.0.0.1:${port}/setpoint`,
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
});
