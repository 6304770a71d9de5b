import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../service/support/service-harness.js';

interface SignedIn {
  cookie: string;
  csrf: string;
}

describe('dashboard sign-in, CSRF and roles', () => {
  let h: Harness;
  let projectId: string;

  beforeAll(async () => {
    h = await createHarness();
    await h.services.users.create('ana', 'correct horse battery', 'admin');
    await h.services.users.create('vic', 'viewer password 1', 'viewer');
    await h.services.users.create('eda', 'editor password 1', 'editor');
    projectId = (await h.request('POST', '/api/v1/projects', { name: 'orders' })).json().id;
  });

  afterAll(async () => {
    await h?.close();
  });

  async function signIn(username: string, password: string): Promise<SignedIn> {
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      payload: { username, password },
    });
    expect(response.statusCode).toBe(200);
    const cookies = response.cookies as Array<{
      name: string;
      value: string;
      httpOnly?: boolean;
      sameSite?: string;
    }>;
    const session = cookies.find((cookie) => cookie.name === 'setpoint_session');
    const csrf = cookies.find((cookie) => cookie.name === 'setpoint_csrf');
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Strict');
    return {
      cookie: `setpoint_session=${session?.value}; setpoint_csrf=${csrf?.value}`,
      csrf: csrf?.value ?? '',
    };
  }

  it('signs in with the right password only, with one message for either mistake', async () => {
    const wrongPassword = await h.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      payload: { username: 'ana', password: 'nope' },
    });
    const wrongUser = await h.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      payload: { username: 'bob', password: 'nope' },
    });

    expect(wrongPassword.statusCode).toBe(401);
    expect(wrongPassword.json()).toEqual(wrongUser.json());
    const session = await signIn('ana', 'correct horse battery');
    const me = await h.app.inject({
      method: 'GET',
      url: '/api/v1/session',
      headers: { cookie: session.cookie },
    });
    expect(me.json()).toEqual({ user: { username: 'ana', role: 'admin' } });
  });

  it('requires the CSRF header on state-changing requests made with a session', async () => {
    const session = await signIn('ana', 'correct horse battery');
    const body = { settings: { slaMinutes: 30 } };

    const without = await h.app.inject({
      method: 'PATCH',
      url: `/api/v1/projects/${projectId}`,
      headers: { cookie: session.cookie },
      payload: body,
    });
    const withHeader = await h.app.inject({
      method: 'PATCH',
      url: `/api/v1/projects/${projectId}`,
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
      payload: body,
    });

    expect(without.statusCode).toBe(403);
    expect(without.json().error.message).toBe('missing or invalid CSRF token');
    expect(withHeader.statusCode).toBe(200);
    const audit = await h.request('GET', `/api/v1/projects/${projectId}/audit`);
    expect(audit.json().items.some((entry: { actor: string }) => entry.actor === 'user:ana')).toBe(true);
  });

  it('lets viewers read but not change anything, enforced by the API', async () => {
    const session = await signIn('vic', 'viewer password 1');
    const headers = { cookie: session.cookie, 'x-csrf-token': session.csrf };

    const read = await h.app.inject({ method: 'GET', url: `/api/v1/projects/${projectId}`, headers });
    const change = await h.app.inject({
      method: 'PATCH',
      url: `/api/v1/projects/${projectId}`,
      headers,
      payload: { name: 'x' },
    });

    expect(read.statusCode).toBe(200);
    expect(change.statusCode).toBe(403);
  });

  it('lets admins manage API keys from the dashboard, and nobody else', async () => {
    const admin = await signIn('ana', 'correct horse battery');
    const editor = await signIn('eda', 'editor password 1');

    const created = await h.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf },
      payload: { name: 'airflow' },
    });
    const listedByEditor = await h.app.inject({
      method: 'GET',
      url: '/api/v1/api-keys',
      headers: { cookie: editor.cookie },
    });
    const { id, secret } = created.json() as { id: string; secret: string };
    const exchange = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/token',
      payload: { api_key_id: id, api_key_secret: secret },
    });
    const listed = await h.app.inject({
      method: 'GET',
      url: '/api/v1/api-keys',
      headers: { cookie: admin.cookie },
    });

    expect(created.statusCode).toBe(201);
    expect(listedByEditor.statusCode).toBe(403);
    expect(exchange.statusCode).toBe(200);
    expect(listed.body).not.toContain(secret);
    expect(listed.json().items.map((key: { name: string }) => key.name)).toContain('airflow');
  });

  it('ends the session on sign-out', async () => {
    const session = await signIn('ana', 'correct horse battery');

    await h.app.inject({
      method: 'DELETE',
      url: '/api/v1/session',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    });
    const after = await h.app.inject({
      method: 'GET',
      url: '/api/v1/session',
      headers: { cookie: session.cookie },
    });

    expect(after.statusCode).toBe(401);
  });

  it('signs in through the demo link once, and never again with the same link', async () => {
    await h.services.users.create('demo', 'demo password 123', 'admin');
    const secret = h.services.demoSignIn.issue();
    const first = await h.app.inject({ method: 'GET', url: `/api/v1/session/demo?token=${secret}` });
    const again = await h.app.inject({ method: 'GET', url: `/api/v1/session/demo?token=${secret}` });

    expect(first.statusCode).toBe(302);
    expect((first.cookies as Array<{ name: string }>).map((cookie) => cookie.name)).toContain(
      'setpoint_session',
    );
    expect(again.statusCode).toBe(404);
    expect(again.json().error.message).toMatch(/already used/);
    expect(again.cookies).toHaveLength(0);
    // a browser opening the used link lands on the sign-in page, which says why, not on JSON
    const browser = await h.app.inject({
      method: 'GET',
      url: `/api/v1/session/demo?token=${secret}`,
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(browser.statusCode).toBe(303);
    expect(browser.headers.location).toBe('/login?notice=demo-link-used');
    expect(browser.cookies).toHaveLength(0);
  });

  it('keeps no password or session token in the database in plain text', async () => {
    await signIn('ana', 'correct horse battery');
    await h.services.store.close();
    const file = readFileSync(path.join(h.dataDir, 'setpoint.db')).toString('latin1');

    expect(file).not.toContain('correct horse battery');
    expect(file).toContain('scrypt$');
  });
});
