/**
 * Issue 40, finding 2: SMTP alert destinations bypassed the outbound guard. `smtp_host` took loopback,
 * private, metadata and encoded addresses with no allow-list, delivery sent `AUTH PLAIN` with the stored
 * password to a listener on loopback, and a new `smtp_host` kept the stored password (a new webhook URL
 * kept its signing secret). Here, through the API and real deliveries to an SMTP listener on loopback:
 * every such host is refused when saved and when delivering, the allow-list admits a port only when it
 * names it, and credentials never follow a destination to another server.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from '../service/support/service-harness.js';
import { storeFailedNotification } from '../support/failed-notification.js';
import { type SmtpListener, startSmtpListener } from '../support/smtp-listener.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const password = 'smtp-password-do-not-leak';

describe('SMTP and webhook destinations behind the outbound guard', () => {
  let allowed: SmtpListener;
  let other: SmtpListener;
  let h: Harness;

  beforeAll(async () => {
    allowed = await startSmtpListener();
    other = await startSmtpListener();
    // only the first listener's port is trusted; the second listens on loopback too
    h = await createHarness({
      config: { outboundAllowList: `127.0.0.1:${allowed.port}`, alertIntervalSeconds: 3600 },
    });
  });

  afterAll(async () => {
    await h?.close();
    await allowed?.close();
    await other?.close();
  });

  const emailDestination = (host: string, port: number, credentials = true) =>
    h.request('POST', '/api/v1/alerts/destinations', {
      kind: 'email',
      name: `mail via ${host}:${port}`,
      smtp_host: host,
      smtp_port: port,
      tls: 'none',
      from: 'setpoint@example.com',
      to: ['oncall@example.com'],
      ...(credentials ? { username: 'setpoint', password } : {}),
    });

  /** Sends one notification to the destination now (a failed one, sent again by an admin). */
  async function deliverTo(destinationId: string): Promise<{ status: string; error: string | null }> {
    const rule = await h.request('POST', '/api/v1/alerts/rules', {
      event: 'sla_missed',
      destination_id: destinationId,
    });
    expect(rule.status).toBe(201);
    const id = await storeFailedNotification(h.services.store.db, rule.json().id, destinationId);
    const retried = await h.request('POST', `/api/v1/notifications/${id}/retry`);
    expect(retried.status).toBe(200);
    return retried.json();
  }

  it('refuses loopback, private, metadata, unspecified and encoded SMTP hosts when saved', async () => {
    const hosts = ['127.0.0.1', '::1', 'localhost', '169.254.169.254', '10.0.0.1', '0.0.0.0', '2130706433'];
    for (const host of hosts) {
      const response = await emailDestination(host, 25);
      expect(response.status, host).toBe(400);
      expect(response.json().error.code, host).toBe('OUTBOUND_URL_REFUSED');
    }
    // the allow-listed address on another port is refused too: the entry names its port
    const otherPort = await emailDestination('127.0.0.1', other.port);
    expect(otherPort.status).toBe(400);
    expect(otherPort.json().error.message).toContain(`port ${other.port}`);
    expect(other.connections()).toBe(0);
  });

  it('delivers to the allow-listed server, signing in there', async () => {
    const created = await emailDestination('127.0.0.1', allowed.port);
    expect(created.status).toBe(201);
    expect(await deliverTo(created.json().id)).toMatchObject({ status: 'SENT' });
    expect(allowed.authLines()).toHaveLength(1);
  });

  it('refuses to deliver to a server the rule refuses, even one stored before the rule held, and sends it nothing', async () => {
    // a destination saved by an earlier version (or before an administrator narrowed the allow-list)
    const created = await emailDestination('127.0.0.1', allowed.port);
    const id = created.json().id as string;
    const row = await h.services.store.db
      .selectFrom('alert_destinations')
      .select('settings')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const settings = {
      ...JSON.parse(row.settings),
      port: other.port,
      target: `smtp://127.0.0.1:${other.port}`,
    };
    await h.services.store.db
      .updateTable('alert_destinations')
      .set({ settings: JSON.stringify(settings) })
      .where('id', '=', id)
      .execute();

    const delivered = await deliverTo(id);
    expect(delivered.status).toBe('FAILED');
    expect(delivered.error).toMatch(/loopback address \(port \d+\)/);
    expect(other.connections()).toBe(0);
    expect(other.authLines()).toEqual([]);
    expect(JSON.stringify(h.logLines())).not.toContain(password);
  });

  it('clears the stored SMTP credentials when the server changes, unless the same edit brings new ones', async () => {
    const created = await emailDestination('127.0.0.1', allowed.port);
    const id = created.json().id as string;
    expect(created.json().email.signs_in).toBe(true);
    // a second trusted port: the edit is allowed, the credentials are not carried to it
    await h.close();
    h = await createHarness({
      dataDir: h.dataDir,
      config: {
        outboundAllowList: `127.0.0.1:${allowed.port}, 127.0.0.1:${other.port}`,
        alertIntervalSeconds: 3600,
      },
    });
    const moved = await h.request('PATCH', `/api/v1/alerts/destinations/${id}`, { smtp_port: other.port });
    expect(moved.status).toBe(200);
    expect(moved.json()).toMatchObject({
      target: `smtp://127.0.0.1:${other.port}`,
      email: { signs_in: false },
    });
    expect(await deliverTo(id)).toMatchObject({ status: 'SENT' });
    expect(other.connections()).toBe(1);
    expect(other.authLines()).toEqual([]);
    const audit = await h.services.store.db
      .selectFrom('audit_log')
      .select('detail')
      .where('entity_id', '=', id)
      .where('action', '=', 'update')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.detail)).toMatchObject({ credentials_cleared: ['username', 'password'] });

    // moved back with new credentials in the same edit: they are used
    const back = await h.request('PATCH', `/api/v1/alerts/destinations/${id}`, {
      smtp_port: allowed.port,
      username: 'setpoint',
      password: 'a-new-password',
    });
    expect(back.json()).toMatchObject({ email: { signs_in: true } });
  });

  describe('webhooks', () => {
    let receiver: Server;
    let url = '';

    beforeAll(async () => {
      receiver = createServer((_request, response) => response.end('ok'));
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const address = receiver.address();
      url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      await h.close();
      h = await createHarness({
        dataDir: h.dataDir,
        config: { outboundAllowList: url.replace('http://', ''), alertIntervalSeconds: 3600 },
      });
    });

    afterAll(() => {
      receiver?.close();
    });

    it('refuses a new URL without a new signing secret, and takes both together', async () => {
      const created = await h.request('POST', '/api/v1/alerts/destinations', {
        kind: 'webhook',
        name: 'hook',
        url: `${url}/first`,
        signing_secret: 'whsec-0123456789abcdef',
      });
      expect(created.status).toBe(201);
      const id = created.json().id as string;
      const alone = await h.request('PATCH', `/api/v1/alerts/destinations/${id}`, { url: `${url}/second` });
      expect(alone.status).toBe(400);
      expect(alone.json().error.code).toBe('SIGNING_SECRET_REQUIRED');
      const together = await h.request('PATCH', `/api/v1/alerts/destinations/${id}`, {
        url: `${url}/second`,
        signing_secret: 'whsec-fedcba9876543210',
      });
      expect(together.status).toBe(200);
      // the port of a webhook URL is checked against the allow-list as well
      const elsewhere = await h.request('POST', '/api/v1/alerts/destinations', {
        kind: 'webhook',
        name: 'hook on another port',
        url: 'http://127.0.0.1:1/hook',
        signing_secret: 'whsec-0123456789abcdef',
      });
      expect(elsewhere.status).toBe(400);
    });
  });
});
