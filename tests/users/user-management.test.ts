import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness, signedInHeaders } from '../service/support/service-harness.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

type SignedIn = Awaited<ReturnType<typeof signedInHeaders>>;

describe('user management and password changes', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness();
    await h.services.users.create('ana', 'admin password 1', 'admin');
  });

  afterAll(async () => {
    await h?.close();
  });

  async function trySignIn(username: string, password: string) {
    return h.app.inject({ method: 'POST', url: '/api/v1/session', payload: { username, password } });
  }

  const signIn = (username: string, password: string) => signedInHeaders(h, username, password);

  function as(
    session: SignedIn,
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    url: string,
    payload?: object,
  ) {
    return h.app.inject({
      method,
      url,
      headers: session,
      ...(payload ? { payload } : {}),
    });
  }

  const userId = async (username: string) =>
    (await h.request('GET', '/api/v1/users'))
      .json()
      .items.find((user: { username: string }) => user.username === username).id as string;

  it('creates a user with a generated password shown once, and lists users without secrets', async () => {
    const created = await h.request('POST', '/api/v1/users', { username: 'eda', role: 'editor' });
    expect(created.status).toBe(201);
    const { user, password } = created.json();
    expect(user).toMatchObject({ username: 'eda', role: 'editor', disabled_at: null });
    expect(password).toMatch(/^[\w-]{20}$/);
    await signIn('eda', password);

    const listed = await h.request('GET', '/api/v1/users');
    expect(listed.json().items.map((item: { username: string }) => item.username)).toEqual(['ana', 'eda']);
    expect(listed.body).not.toMatch(/scrypt|password/);

    const chosen = await h.request('POST', '/api/v1/users', {
      username: 'vic',
      role: 'viewer',
      password: 'viewer password 1',
    });
    expect(chosen.json().password).toBeUndefined();
    const duplicate = await h.request('POST', '/api/v1/users', { username: 'vic', role: 'viewer' });
    expect(duplicate.status).toBe(409);
    const weak = await h.request('POST', '/api/v1/users', {
      username: 'wes',
      role: 'viewer',
      password: 'short',
    });
    expect(weak.status).toBe(400);
  });

  it('keeps user names unique whatever their case, and signs in by the name in any case', async () => {
    // issue 40: ADMIN could be created beside admin
    for (const username of ['ANA', 'Ana', 'aNa']) {
      const clash = await h.request('POST', '/api/v1/users', { username, role: 'admin' });
      expect(clash.status, username).toBe(409);
      expect(clash.json().error.message).toMatch(/already exists as ana/);
    }
    // the database refuses a second one too (two admins adding it at once): a unique index on lower(username)
    await expect(
      h.services.store.db
        .insertInto('users')
        .values({ id: 'usr_race', username: 'ANA', password_hash: 'x', role: 'viewer', created_at: 0 })
        .execute(),
    ).rejects.toThrow(/unique|UNIQUE/);
    const listed = (await h.request('GET', '/api/v1/users')).json().items as Array<{ username: string }>;
    expect(listed.filter((user) => user.username.toLowerCase() === 'ana')).toHaveLength(1);
    expect((await trySignIn('ANA', 'admin password 1')).statusCode).toBe(200);
  });

  it('is for admins only: an editor and a viewer get 403', async () => {
    const password = (await h.request('POST', `/api/v1/users/${await userId('eda')}/password`, {})).json()
      .password;
    const editor = await signIn('eda', password);
    const viewer = await signIn('vic', 'viewer password 1');
    for (const session of [editor, viewer]) {
      const list = await as(session, 'GET', '/api/v1/users');
      expect(list.statusCode).toBe(403);
      expect(list.json().error.message).toBe('only admins may manage users');
      expect(
        (await as(session, 'POST', '/api/v1/users', { username: 'mal', role: 'admin' })).statusCode,
      ).toBe(403);
      expect((await as(session, 'DELETE', `/api/v1/users/${await userId('ana')}`)).statusCode).toBe(403);
    }
  });

  it("changes a role and ends that user's sessions", async () => {
    const id = await userId('vic');
    const before = await signIn('vic', 'viewer password 1');
    const changed = await h.request('PATCH', `/api/v1/users/${id}`, { role: 'editor' });
    expect(changed.json()).toMatchObject({ username: 'vic', role: 'editor' });
    expect((await as(before, 'GET', '/api/v1/session')).statusCode).toBe(401);
    const after = await signIn('vic', 'viewer password 1');
    expect((await as(after, 'GET', '/api/v1/session')).json().user.role).toBe('editor');
  });

  it('disables a user (no sign-in, sessions end) and enables them again', async () => {
    const id = await userId('vic');
    const session = await signIn('vic', 'viewer password 1');
    const disabled = await h.request('PATCH', `/api/v1/users/${id}`, { disabled: true });
    expect(disabled.json().disabled_at).toEqual(expect.any(Number));
    expect((await as(session, 'GET', '/api/v1/projects')).statusCode).toBe(401);
    const refused = await trySignIn('vic', 'viewer password 1');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.message).toMatch(/disabled; ask an admin/);
    // A wrong password still gets the one answer for every mistake.
    expect((await trySignIn('vic', 'not the password')).json().error.message).toBe(
      'wrong username or password',
    );
    await h.request('PATCH', `/api/v1/users/${id}`, { disabled: false });
    await signIn('vic', 'viewer password 1');
  });

  it('never removes the last enabled admin', async () => {
    const ana = await userId('ana');
    for (const [method, url, body] of [
      ['PATCH', `/api/v1/users/${ana}`, { role: 'editor' }],
      ['PATCH', `/api/v1/users/${ana}`, { disabled: true }],
      ['DELETE', `/api/v1/users/${ana}`, undefined],
    ] as const) {
      const refused = await h.request(method, url, body);
      expect(refused.status, `${method} ${JSON.stringify(body)}`).toBe(409);
      expect(refused.json().error).toMatchObject({ code: 'LAST_ADMIN' });
    }
    expect((await h.request('GET', '/api/v1/users')).json().items[0]).toMatchObject({
      username: 'ana',
      role: 'admin',
      disabled_at: null,
    });
    await signIn('ana', 'admin password 1');

    // With a second admin, the first may go; then the second is the last.
    const bea = (await h.request('POST', '/api/v1/users', { username: 'bea', role: 'admin' })).json().user.id;
    expect((await h.request('DELETE', `/api/v1/users/${ana}`)).status).toBe(204);
    expect((await trySignIn('ana', 'admin password 1')).statusCode).toBe(401);
    expect((await h.request('PATCH', `/api/v1/users/${bea}`, { disabled: true })).status).toBe(409);
    expect((await h.request('DELETE', '/api/v1/users/usr_missing')).status).toBe(404);
  });

  it('lets every user change their own password: current one required, other sessions end, this one stays', async () => {
    const here = await signIn('vic', 'viewer password 1');
    const elsewhere = await signIn('vic', 'viewer password 1');
    await h.request('PATCH', `/api/v1/users/${await userId('vic')}`, { role: 'viewer' });
    const viewerHere = await signIn('vic', 'viewer password 1');
    const viewerElsewhere = await signIn('vic', 'viewer password 1');
    expect((await as(here, 'GET', '/api/v1/session')).statusCode).toBe(401);
    expect((await as(elsewhere, 'GET', '/api/v1/session')).statusCode).toBe(401);

    const wrong = await as(viewerHere, 'PUT', '/api/v1/session/password', {
      current_password: 'a wrong guess',
      new_password: 'a brand new passphrase',
    });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error.message).toBe('the current password is not right');
    const short = await as(viewerHere, 'PUT', '/api/v1/session/password', {
      current_password: 'viewer password 1',
      new_password: 'short',
    });
    expect(short.statusCode).toBe(400);

    const changed = await as(viewerHere, 'PUT', '/api/v1/session/password', {
      current_password: 'viewer password 1',
      new_password: 'a brand new passphrase',
    });
    expect(changed.statusCode, changed.body).toBe(204);
    expect((await as(viewerHere, 'GET', '/api/v1/session')).statusCode).toBe(200);
    expect((await as(viewerElsewhere, 'GET', '/api/v1/session')).statusCode).toBe(401);
    expect((await trySignIn('vic', 'viewer password 1')).statusCode).toBe(401);
    await signIn('vic', 'a brand new passphrase');
  });

  it('refuses a password change without a CSRF token or from an API key', async () => {
    const session = await signIn('vic', 'a brand new passphrase');
    const noCsrf = await h.app.inject({
      method: 'PUT',
      url: '/api/v1/session/password',
      headers: { cookie: session.cookie },
      payload: { current_password: 'a brand new passphrase', new_password: 'another new passphrase' },
    });
    expect(noCsrf.statusCode).toBe(403);
    const byKey = await h.app.inject({
      method: 'PUT',
      url: '/api/v1/session/password',
      headers: { authorization: `Bearer ${h.token}` },
      payload: { current_password: 'x', new_password: 'another new passphrase' },
    });
    expect(byKey.statusCode).toBe(400);
    expect(byKey.json().error.code).toBe('NOT_A_USER');
  });

  it("resets a user's password as an admin, ending every session of theirs", async () => {
    const id = await userId('vic');
    const session = await signIn('vic', 'a brand new passphrase');
    const reset = await h.request('POST', `/api/v1/users/${id}/password`, {});
    expect(reset.json()).toEqual({ password: expect.stringMatching(/^[\w-]{20}$/), sessions_ended: true });
    expect((await as(session, 'GET', '/api/v1/session')).statusCode).toBe(401);
    expect(await h.services.users.sessionCount(id)).toBe(0);
    await signIn('vic', reset.json().password);
  });

  it('records every change in the audit trail, never a password', async () => {
    const trail = (await h.request('GET', '/api/v1/audit?entity=user&limit=500')).json();
    const actions = trail.items.map(
      (item: { action: string; detail: { username: string } }) => `${item.detail.username} ${item.action}`,
    );
    expect(actions).toEqual(
      expect.arrayContaining([
        'eda create',
        'vic role_changed',
        'vic disabled',
        'vic enabled',
        'ana delete',
        'vic password_changed',
        'vic password_reset',
      ]),
    );
    const changedBy = trail.items.find((item: { action: string }) => item.action === 'password_changed');
    expect(changedBy.actor).toBe('user:vic');
    const created = trail.items.find(
      (item: { detail: { username: string } }) => item.detail.username === 'eda',
    );
    expect(created.actor).toBe(`api-key:${h.key.id}`);
    expect(JSON.stringify(trail)).not.toMatch(/passphrase|password 1/);
  });
});
