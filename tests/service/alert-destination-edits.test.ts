import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { webhookSignature } from 'setpoint/service/alerts/alert-delivery';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness, signedInHeaders } from './support/service-harness.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const oldSecret = 'whsec-old-0123456789abcdef';
const newSecret = 'whsec-new-fedcba9876543210';

describe('editing an alert destination through the API', () => {
  let h: Harness;
  let receiver: Server;
  let receiverUrl = '';
  const received: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        received.push({ path: request.url ?? '', headers: request.headers, body });
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address();
    receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    h = await createHarness({ config: { outboundAllowList: '127.0.0.1', alertIntervalSeconds: 3600 } });
  });

  afterAll(async () => {
    await h?.close();
    receiver?.close();
  });

  const auditOf = (id: string) =>
    h.services.store.db
      .selectFrom('audit_log')
      .select(['action', 'actor', 'detail'])
      .where('entity', '=', 'alert_destination')
      .where('entity_id', '=', id)
      .orderBy('id')
      .execute();

  it('replaces a webhook URL and signing secret write-only, audits the change and delivers with the new ones', async () => {
    const created = await h.request('POST', '/api/v1/alerts/destinations', {
      kind: 'webhook',
      name: 'on-call',
      url: `${receiverUrl}/old?token=first`,
      signing_secret: oldSecret,
    });
    expect(created.status).toBe(201);
    const id = created.json().id as string;
    expect(created.json()).toMatchObject({ updated_at: null, updated_by: null });

    const edited = await h.request('PATCH', `/api/v1/alerts/destinations/${id}`, {
      name: 'on-call (EU)',
      max_per_hour: 60,
      url: `${receiverUrl}/new?token=second`,
      signing_secret: newSecret,
    });
    expect(edited.status, edited.body).toBe(200);
    expect(edited.json()).toMatchObject({
      id,
      kind: 'webhook',
      name: 'on-call (EU)',
      max_per_hour: 60,
      target: receiverUrl,
      updated_by: `api-key:${h.key.id}`,
    });
    expect(typeof edited.json().updated_at).toBe('number');
    // Write-only: neither the answer, the list, the audit trail nor the stored row shows them.
    const listed = await h.request('GET', '/api/v1/alerts/destinations');
    const rows = await h.services.store.db.selectFrom('alert_destinations').selectAll().execute();
    const trail = await auditOf(id);
    for (const text of [edited.body, listed.body, JSON.stringify(rows), JSON.stringify(trail)]) {
      expect(text).not.toContain(newSecret);
      expect(text).not.toContain('token=second');
      expect(text).not.toContain('/new');
    }
    expect(trail.map((entry) => entry.action)).toEqual(['create', 'update']);
    expect(trail[1]?.actor).toBe(`api-key:${h.key.id}`);
    expect(JSON.parse(trail[1]?.detail ?? '{}')).toEqual({
      name: 'on-call (EU)',
      kind: 'webhook',
      changes: {
        name: { from: 'on-call', to: 'on-call (EU)' },
        max_per_hour: { from: 30, to: 60 },
      },
      credentials_replaced: ['url', 'signing_secret'],
    });

    // A notification Setpoint gave up on is sent again to the destination as it is now.
    const rule = (
      await h.request('POST', '/api/v1/alerts/rules', { event: 'sla_missed', destination_id: id })
    ).json();
    await h.services.store.db
      .insertInto('notifications')
      .values({
        id: 'ntf_edit',
        rule_id: rule.id,
        destination_id: id,
        project_id: null,
        event: 'sla_missed',
        dedupe_key: 'edit-1',
        title: 'a run over its SLA',
        detail: '{}',
        status: 'FAILED',
        error: 'the destination answered HTTP 404',
        created_at: Date.now(),
        attempts: 1,
        next_attempt_at: null,
      })
      .execute();
    const retried = await h.request('POST', '/api/v1/notifications/ntf_edit/retry', {});
    expect(retried.json()).toMatchObject({ status: 'SENT' });
    expect(received.map((item) => item.path)).toEqual(['/new?token=second']);
    const [hook] = received;
    expect(hook?.headers['x-setpoint-signature']).toBe(webhookSignature(hook?.body ?? '', newSecret));
  });

  it('refuses bad edits with a 4xx JSON error and changes nothing', async () => {
    const slack = (
      await h.request('POST', '/api/v1/alerts/destinations', {
        kind: 'slack',
        name: 'data-eng',
        url: `${receiverUrl}/services/T1/B1/xyz`,
      })
    ).json();
    const before = await h.services.store.db
      .selectFrom('alert_destinations')
      .selectAll()
      .where('id', '=', slack.id)
      .executeTakeFirstOrThrow();
    const cases: { body: unknown; status: number; code: string; message: RegExp }[] = [
      { body: {}, status: 400, code: 'VALIDATION_FAILED', message: /give at least one field to change/ },
      { body: { kind: 'webhook' }, status: 400, code: 'VALIDATION_FAILED', message: /kind/ },
      { body: { max_per_hour: 0 }, status: 400, code: 'VALIDATION_FAILED', message: /max_per_hour/ },
      { body: { url: 'not a url' }, status: 400, code: 'VALIDATION_FAILED', message: /url/ },
      {
        body: { signing_secret: 'a-long-enough-secret-123' },
        status: 400,
        code: 'FIELD_NOT_FOR_KIND',
        message: /^signing_secret cannot be set on a slack destination \(it takes name, max_per_hour, url\)$/,
      },
      {
        body: { url: 'http://169.254.169.254/latest/meta-data' },
        status: 400,
        code: 'OUTBOUND_URL_REFUSED',
        message: /169\.254\.169\.254/,
      },
    ];
    for (const { body, status, code, message } of cases) {
      const answer = await h.request('PATCH', `/api/v1/alerts/destinations/${slack.id}`, body);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.json().error.code, JSON.stringify(body)).toBe(code);
      expect(answer.json().error.message, JSON.stringify(body)).toMatch(message);
    }
    const missing = await h.request('PATCH', '/api/v1/alerts/destinations/dst_missing', { name: 'x' });
    expect(missing.status).toBe(404);
    expect(missing.json().error.message).toBe('alert destination dst_missing does not exist');

    await h.services.users.create('vic', 'viewer password 1', 'viewer');
    const asViewer = await h.app.inject({
      method: 'PATCH',
      url: `/api/v1/alerts/destinations/${slack.id}`,
      headers: await signedInHeaders(h, 'vic', 'viewer password 1'),
      payload: { name: 'taken over' },
    });
    expect(asViewer.statusCode).toBe(403);

    const after = await h.services.store.db
      .selectFrom('alert_destinations')
      .selectAll()
      .where('id', '=', slack.id)
      .executeTakeFirstOrThrow();
    expect(after).toEqual(before);
    expect((await auditOf(slack.id)).map((entry) => entry.action)).toEqual(['create']);
  });

  it('changes an email destination’s server and recipients, and drops or replaces its SMTP credentials', async () => {
    const created = (
      await h.request('POST', '/api/v1/alerts/destinations', {
        kind: 'email',
        name: 'ops-mail',
        smtp_host: '127.0.0.1',
        smtp_port: 2525,
        tls: 'none',
        username: 'setpoint',
        password: 'first-smtp-password',
        from: 'setpoint@example.com',
        to: ['a@example.com'],
      })
    ).json();
    expect(created.email).toEqual({
      smtp_host: '127.0.0.1',
      smtp_port: 2525,
      tls: 'none',
      from: 'setpoint@example.com',
      to: ['a@example.com'],
      signs_in: true,
    });
    const secretOf = async () => {
      const row = await h.services.store.db
        .selectFrom('alert_destinations')
        .select('secret')
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      return JSON.parse(h.services.secretBox.decrypt(row.secret ?? '', `alert_destination:${created.id}`));
    };

    const moved = await h.request('PATCH', `/api/v1/alerts/destinations/${created.id}`, {
      smtp_port: 2526,
      to: ['a@example.com', 'b@example.com'],
      username: null,
    });
    expect(moved.status, moved.body).toBe(200);
    expect(moved.json()).toMatchObject({
      target: 'smtp://127.0.0.1:2526',
      email: { smtp_port: 2526, to: ['a@example.com', 'b@example.com'], signs_in: false },
    });
    expect(await secretOf()).toEqual({});

    const signedIn = await h.request('PATCH', `/api/v1/alerts/destinations/${created.id}`, {
      username: 'relay',
      password: 'second-smtp-password',
    });
    expect(signedIn.json().email.signs_in).toBe(true);
    expect(signedIn.body).not.toContain('second-smtp-password');
    expect(await secretOf()).toEqual({ username: 'relay', password: 'second-smtp-password' });

    const orphanPassword = await h.request('PATCH', `/api/v1/alerts/destinations/${created.id}`, {
      password: 'third',
    });
    expect(orphanPassword.status).toBe(400);
    expect(orphanPassword.json().error.message).toMatch(/password needs username/);
    const wrongKind = await h.request('PATCH', `/api/v1/alerts/destinations/${created.id}`, {
      url: 'https://hooks.example.com/x',
    });
    expect(wrongKind.json().error.code).toBe('FIELD_NOT_FOR_KIND');

    const trail = await auditOf(created.id);
    expect(trail.map((entry) => entry.action)).toEqual(['create', 'update', 'update']);
    expect(JSON.parse(trail[1]?.detail ?? '{}')).toMatchObject({
      changes: {
        port: { from: 2525, to: 2526 },
        target: { from: 'smtp://127.0.0.1:2525', to: 'smtp://127.0.0.1:2526' },
        to: { from: ['a@example.com'], to: ['a@example.com', 'b@example.com'] },
      },
      credentials_replaced: ['username'],
    });
    expect(JSON.stringify(trail)).not.toMatch(/first-smtp-password|second-smtp-password|relay/);
  });
});
