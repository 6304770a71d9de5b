import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import path from 'node:path';
import { webhookSignature } from 'setpoint/service/alerts/alert-delivery';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { processedFixtureRun } from './support/fixture-runs.js';
import { createHarness, type Harness, signedInHeaders } from './support/service-harness.js';

vi.setConfig({ testTimeout: 150_000, hookTimeout: 150_000 });

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A receiver on 127.0.0.1: answers 200; 500 on /broken; 404 on /gone; 503 to the first two requests
 * to /flaky; and records every request.
 */
async function startReceiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body });
      const flakyCalls = received.filter((item) => item.path === '/flaky').length;
      response.statusCode =
        request.url === '/broken'
          ? 500
          : request.url === '/gone'
            ? 404
            : request.url === '/flaky' && flakyCalls <= 2
              ? 503
              : 200;
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { server, url: `http://127.0.0.1:${port}`, received };
}

describe('alerts', () => {
  let h: Harness;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let projectId: string;
  const signingSecret = 'whsec-0123456789abcdef';

  beforeAll(async () => {
    receiver = await startReceiver();
    h = await createHarness({
      startWorkers: true,
      config: { outboundAllowList: '127.0.0.1', alertIntervalSeconds: 3600 },
    });
    projectId = (
      await h.request('POST', '/api/v1/projects', { name: 'orders', settings: { slaMinutes: 0.01 } })
    ).json().id;
  });

  afterAll(async () => {
    receiver?.server.close();
    await h?.close();
  });

  it('sends a run that missed its SLA to a signed webhook once, however often the rules are evaluated', async () => {
    const destination = await h.request('POST', '/api/v1/alerts/destinations', {
      kind: 'webhook',
      name: 'on-call',
      url: `${receiver.url}/hook?token=abc`,
      signing_secret: signingSecret,
    });
    expect(destination.status).toBe(201);
    expect(destination.json()).toMatchObject({ kind: 'webhook', target: receiver.url, max_per_hour: 30 });
    expect(destination.body).not.toContain('token=abc');
    const rule = await h.request('POST', '/api/v1/alerts/rules', {
      event: 'sla_missed',
      destination_id: destination.json().id,
    });
    expect(rule.status).toBe(201);
    expect(rule.json()).toMatchObject({ project_id: null, params: { threshold_pct: 20, window_runs: 5 } });

    await processedFixtureRun(h, projectId, 'run-1');

    expect(await h.services.alerts.evaluate()).toBe(1);
    expect(await h.services.alerts.evaluate()).toBe(0);

    const hooks = receiver.received.filter((request) => request.path === '/hook?token=abc');
    expect(hooks).toHaveLength(1);
    const [hook] = hooks;
    expect(hook?.headers['x-setpoint-signature']).toBe(webhookSignature(hook?.body ?? '', signingSecret));
    expect(hook?.headers['x-setpoint-event']).toBe('sla_missed');
    const payload = JSON.parse(hook?.body ?? '{}');
    expect(payload).toMatchObject({
      event: 'sla_missed',
      project_id: projectId,
      detail: { sla_minutes: 0.01 },
    });
    expect(payload.title).toMatch(/^orders: run took .* over its 0.01 min SLA$/);

    const listed = (await h.request('GET', '/api/v1/notifications')).json();
    expect(listed.items).toHaveLength(1);
    expect(listed.items[0]).toMatchObject({ status: 'SENT', event: 'sla_missed', project_id: projectId });
  });

  it('formats Slack messages, records failed deliveries with the reason, and holds back what exceeds the hourly limit', async () => {
    const slack = (
      await h.request('POST', '/api/v1/alerts/destinations', {
        kind: 'slack',
        name: 'slack',
        url: `${receiver.url}/slack`,
        max_per_hour: 1,
      })
    ).json();
    const broken = (
      await h.request('POST', '/api/v1/alerts/destinations', {
        kind: 'webhook',
        name: 'broken',
        url: `${receiver.url}/broken`,
        signing_secret: signingSecret,
      })
    ).json();
    for (const destination of [slack.id, slack.id, broken.id]) {
      const rule = { event: 'sla_missed', project_id: projectId, destination_id: destination };
      expect((await h.request('POST', '/api/v1/alerts/rules', rule)).status).toBe(201);
    }

    await processedFixtureRun(h, projectId, 'run-2');

    // the organization-wide rule of the first test finds run-2 too
    expect(await h.services.alerts.evaluate()).toBe(4);

    const slackPosts = receiver.received.filter((request) => request.path === '/slack');
    expect(slackPosts).toHaveLength(1);
    expect(JSON.parse(slackPosts[0]?.body ?? '{}').text).toMatch(/^\*Setpoint\* — orders: run took/);
    const statuses = (await h.request('GET', `/api/v1/notifications?project_id=${projectId}`))
      .json()
      .items.map((item: { status: string; error: string | null }) => `${item.status}:${item.error ?? ''}`)
      .sort();
    expect(statuses).toEqual([
      'RATE_LIMITED:more than 1 in an hour',
      'RETRYING:the destination answered HTTP 500',
      'SENT:',
      'SENT:',
      'SENT:',
    ]);
  });

  it('retries a transient failure with backoff, parks one that keeps failing, and does not retry a 4xx', async () => {
    const { maxDeliveryAttempts, retryDelayMs } = await import('setpoint/service/alerts/alert-service');
    const project = (
      await h.request('POST', '/api/v1/projects', { name: 'retries', settings: { slaMinutes: 0.01 } })
    ).json().id;
    const ids: Record<string, string> = {};
    for (const name of ['flaky', 'broken', 'gone']) {
      const destination = (
        await h.request('POST', '/api/v1/alerts/destinations', {
          kind: 'webhook',
          name,
          url: `${receiver.url}/${name}`,
          signing_secret: signingSecret,
        })
      ).json();
      ids[name] = destination.id;
      await h.request('POST', '/api/v1/alerts/rules', {
        event: 'sla_missed',
        project_id: project,
        destination_id: destination.id,
      });
    }
    await processedFixtureRun(h, project, 'run-1');
    const byDestination = async () => {
      const items = (await h.request('GET', `/api/v1/notifications?project_id=${project}`)).json()
        .items as Array<{
        destination_id: string;
        status: string;
        attempts: number;
        error: string | null;
        next_attempt_at: number | null;
      }>;
      return Object.fromEntries(
        Object.entries(ids).map(([name, id]) => [name, items.find((item) => item.destination_id === id)]),
      );
    };
    let now = Date.now();
    await h.services.alerts.evaluate(now);
    let state = await byDestination();
    expect(state.flaky).toMatchObject({
      status: 'RETRYING',
      attempts: 1,
      error: 'the destination answered HTTP 503',
    });
    expect(state.flaky?.next_attempt_at).toBe(now + retryDelayMs(1));
    expect(state.gone).toMatchObject({ status: 'FAILED', attempts: 1, next_attempt_at: null });

    // Not due yet: nothing is sent again.
    const flakyPosts = () => receiver.received.filter((request) => request.path === '/flaky').length;
    await h.services.alerts.evaluate(now + retryDelayMs(1) - 1);
    expect(flakyPosts()).toBe(1);
    for (let attempt = 1; attempt < maxDeliveryAttempts; attempt += 1) {
      now += retryDelayMs(attempt);
      await h.services.alerts.evaluate(now);
    }
    state = await byDestination();
    expect(state.flaky).toMatchObject({ status: 'SENT', attempts: 3, error: null, next_attempt_at: null });
    expect(flakyPosts()).toBe(3);
    expect(state.broken).toMatchObject({
      status: 'PARKED',
      attempts: maxDeliveryAttempts,
      error: 'the destination answered HTTP 500',
      next_attempt_at: null,
    });
    expect(receiver.received.filter((request) => request.path === '/gone')).toHaveLength(1);
    expect(retryDelayMs(1) < retryDelayMs(2) && retryDelayMs(20) === 3_600_000).toBe(true);
  });

  it('refuses destinations the SSRF guard refuses, and non-admins', async () => {
    const metadata = await h.request('POST', '/api/v1/alerts/destinations', {
      kind: 'slack',
      name: 'metadata',
      url: 'http://169.254.169.254/latest/meta-data',
    });
    expect(metadata.status).toBe(400);
    expect(metadata.json().error.code).toBe('OUTBOUND_URL_REFUSED');

    await h.services.users.create('vic', 'viewer password 1', 'viewer');
    const asViewer = await h.app.inject({
      method: 'POST',
      url: '/api/v1/alerts/rules',
      headers: await signedInHeaders(h, 'vic', 'viewer password 1'),
      payload: { event: 'cost_spike', destination_id: 'dst_x' },
    });
    expect(asViewer.statusCode).toBe(403);
  });

  it('keeps destination URLs and signing secrets out of the database in plain text', async () => {
    await h.services.store.close();
    const file = readFileSync(path.join(h.dataDir, 'setpoint.db')).toString('latin1');

    expect(file).not.toContain(signingSecret);
    expect(file).not.toContain('/hook?token=abc');
  });
});
