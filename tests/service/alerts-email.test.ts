import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { describeFull } from '../support/tiers.js';
import { processedFixtureRun } from './support/fixture-runs.js';
import { createHarness, eventually, type Harness } from './support/service-harness.js';

vi.setConfig({ testTimeout: 150_000, hookTimeout: 150_000 });

const python = process.env.SETPOINT_PYTHON ?? 'python3';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

describeFull('email alerts through a real SMTP server (aiosmtpd)', 'the aiosmtpd PyPI package', () => {
  let h: Harness;
  let smtp: ChildProcess;
  let port: number;
  let printed = '';

  beforeAll(async () => {
    port = await freePort();
    // aiosmtpd's Debugging handler prints every message it accepts, headers and body, to stdout
    smtp = spawn(
      python,
      ['-m', 'aiosmtpd', '-n', '-l', `127.0.0.1:${port}`, '-c', 'aiosmtpd.handlers.Debugging', 'stdout'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    smtp.stdout?.setEncoding('utf8').on('data', (chunk: string) => (printed += chunk));
    smtp.stderr?.setEncoding('utf8').on('data', (chunk: string) => (printed += chunk));
    await eventually(
      async () =>
        new Promise<true | undefined>((resolve) => {
          const socket = createServer();
          socket.once('error', () => resolve(true));
          socket.listen(port, '127.0.0.1', () => socket.close(() => resolve(undefined)));
        }),
      30_000,
      'aiosmtpd to listen',
    );
    h = await createHarness({
      startWorkers: true,
      config: { outboundAllowList: '127.0.0.1', alertIntervalSeconds: 3600 },
    });
  });

  afterAll(async () => {
    smtp?.kill('SIGTERM');
    await h?.close();
  });

  it('mails a missed SLA to every recipient through the SMTP server', async () => {
    const projectId = (
      await h.request('POST', '/api/v1/projects', { name: 'invoices', settings: { slaMinutes: 0.01 } })
    ).json().id;
    const destination = await h.request('POST', '/api/v1/alerts/destinations', {
      kind: 'email',
      name: 'data team',
      smtp_host: '127.0.0.1',
      smtp_port: port,
      tls: 'none',
      from: 'setpoint@example.com',
      to: ['oncall@example.com', 'lead@example.com'],
    });
    expect(destination.status).toBe(201);
    expect(destination.json()).toMatchObject({ kind: 'email', target: `smtp://127.0.0.1:${port}` });
    await h.request('POST', '/api/v1/alerts/rules', {
      event: 'sla_missed',
      destination_id: destination.json().id,
    });
    await processedFixtureRun(h, projectId, 'mail-1');

    expect(await h.services.alerts.evaluate()).toBe(1);

    const notifications = (await h.request('GET', '/api/v1/notifications')).json();
    expect(notifications.items[0]).toMatchObject({ status: 'SENT', error: null });
    await eventually(
      async () => (printed.includes('invoices: run took') ? true : undefined),
      20_000,
      'the mail',
    );
    expect(printed).toMatch(/Subject: \[Setpoint\] invoices: run took .* over its 0\.01 min SLA/);
    expect(printed).toContain('oncall@example.com');
    expect(printed).toContain('lead@example.com');
    expect(printed).toContain('X-Setpoint-Event: sla_missed');
  });
});
