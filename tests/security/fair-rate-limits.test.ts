import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from '../service/support/service-harness.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const hook = { username: 'setpoint', password: 'hook-password-1' };
const basic = (credentials: { username: string; password: string }) =>
  `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;

/**
 * Budgets per route class over a listening server: webhooks per workspace after their Basic auth,
 * sign-in per account and address with backoff, the API per key; health and the dashboard exempt.
 * Client addresses come from X-Forwarded-For (trustProxy = the loopback proxy).
 */
describe('fair rate limits', () => {
  let h: Harness;
  let base: string;
  const workspaces: string[] = [];

  beforeAll(async () => {
    h = await createHarness({
      config: { rateLimitPerMinute: 20, webhookRateLimitPerMinute: 5, trustProxy: '127.0.0.1' },
    });
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    for (const name of ['noisy', 'quiet']) {
      const created = await h.request('POST', '/api/v1/workspaces', {
        name,
        cloud: 'aws',
        webhook_credentials: hook,
      });
      workspaces.push(created.json().id);
    }
    await h.services.users.create('ana', 'correct horse battery', 'admin');
  });

  afterAll(async () => {
    await h?.close();
  });

  const from = (address: string) => ({ 'x-forwarded-for': address });

  const deliver = (workspaceId: string, runId: number, authorization = basic(hook)) =>
    fetch(`${base}/api/v1/webhooks/databricks/${workspaceId}`, {
      method: 'POST',
      headers: { ...from('198.51.100.1'), authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ event_type: 'jobs.on_start', run: { run_id: runId }, job: { job_id: 1 } }),
    });

  it('limits webhooks per workspace, and a flood spends nobody else’s budget', async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 40; i += 1) {
      const response = await deliver(workspaces[0]!, 1000 + i);
      statuses.push(response.status);
      if (response.status === 429) retryAfter ??= response.headers.get('retry-after');
      await response.arrayBuffer();
    }
    expect(statuses.slice(0, 5)).toEqual([202, 202, 202, 202, 202]);
    expect(statuses.slice(5).every((status) => status === 429)).toBe(true);
    expect(Number(retryAfter)).toBeGreaterThan(0);

    expect((await deliver(workspaces[1]!, 1)).status).toBe(202);
    const health = await fetch(`${base}/healthz`, { headers: from('198.51.100.1') });
    expect(health.status).toBe(200);
    const dashboard = await fetch(`${base}/`, { headers: from('198.51.100.1') });
    expect(dashboard.status).toBeLessThan(429);
    const token = await fetch(`${base}/api/v1/auth/token`, {
      method: 'POST',
      headers: { ...from('198.51.100.1'), 'content-type': 'application/json' },
      body: JSON.stringify({ api_key_id: h.key.id, api_key_secret: h.key.secret }),
    });
    expect(token.status).toBe(200);
  });

  it('checks webhook credentials before reading the body, and backs off wrong ones per address', async () => {
    const huge = 'x'.repeat(9 * 1024 * 1024);
    const unauthenticated = await fetch(`${base}/api/v1/webhooks/databricks/${workspaces[1]}`, {
      method: 'POST',
      headers: { ...from('203.0.113.50'), authorization: basic({ username: 'x', password: 'y' }) },
      body: huge,
    });
    expect(unauthenticated.status).toBe(401);
    const statuses: number[] = [];
    for (let i = 0; i < 25; i += 1) {
      const response = await fetch(`${base}/api/v1/webhooks/databricks/${workspaces[1]}`, {
        method: 'POST',
        headers: { ...from('203.0.113.50'), 'content-type': 'application/json' },
        body: '{}',
      });
      statuses.push(response.status);
    }
    expect(statuses).toContain(429);
    expect((await deliver(workspaces[1]!, 2)).status).toBe(202);
  });

  const signIn = (address: string, password: string, username = 'ana') =>
    fetch(`${base}/api/v1/session`, {
      method: 'POST',
      headers: { ...from(address), 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });

  it('backs off wrong sign-ins per account and address without locking the real user out', async () => {
    const attacker: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 10; i += 1) {
      const response = await signIn('203.0.113.9', `guess-${i}`);
      attacker.push(response.status);
      if (response.status === 429) retryAfter ??= response.headers.get('retry-after');
    }
    expect(attacker.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(attacker.slice(5)).toContain(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);

    expect((await signIn('198.51.100.7', 'correct horse battery')).status).toBe(200);
    // Unknown names get the same answer and the same backoff as known ones.
    expect((await signIn('198.51.100.8', 'x', 'nobody')).status).toBe(401);
  });

  it('answers every API 429 with Retry-After, per key', async () => {
    let limited: Response | undefined;
    for (let i = 0; i < 30 && !limited; i += 1) {
      const response = await fetch(`${base}/api/v1/projects`, {
        headers: { authorization: `Bearer ${h.token}` },
      });
      if (response.status === 429) limited = response;
      else await response.arrayBuffer();
    }
    expect(limited?.status).toBe(429);
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited!.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});
