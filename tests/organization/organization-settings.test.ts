import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, signedInHeaders } from '../service/support/service-harness.js';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { describeFull } from '../support/tiers.js';

const url = '/api/v1/organization/settings';

function organizationSettingsSuite(databaseUrl: () => Promise<string | undefined>) {
  let h: Harness;
  const signedIn = new Map<string, Awaited<ReturnType<typeof signedInHeaders>>>();

  beforeAll(async () => {
    const database = await databaseUrl();
    h = await createHarness(database ? { databaseUrl: database } : {});
    for (const [username, role] of [
      ['ana', 'admin'],
      ['eda', 'editor'],
      ['vic', 'viewer'],
    ] as const) {
      await h.services.users.create(username, `${username} password 123`, role);
      signedIn.set(username, await signedInHeaders(h, username, `${username} password 123`));
    }
  });

  afterAll(async () => {
    await h?.close();
  });

  const asUser = (username: string, method: 'GET' | 'PATCH', payload?: object) => {
    const headers = signedIn.get(username);
    if (!headers) throw new Error(`${username} is not signed in`);
    return h.app.inject({
      method,
      url,
      headers,
      ...(payload ? { payload } : {}),
    });
  };

  it('answers list prices and no project defaults before anyone set them', async () => {
    const response = await h.request('GET', url);

    expect(response.status).toBe(200);
    expect(response.json()).toEqual({
      aws_discount_pct: 0,
      azure_discount_pct: 0,
      gcp_discount_pct: 0,
      dbu_discount_pct: 0,
      default_sla_minutes: null,
      default_preference: 'economy',
      default_apply_mode: 'manual',
      default_auto_apply: false,
      run_retention_days: 400,
      updated_at: null,
      updated_by: null,
    });
  });

  it('lets an admin change some fields, keeps the others, and audits who did it', async () => {
    const response = await asUser('ana', 'PATCH', { aws_discount_pct: 22.5, dbu_discount_pct: 30 });
    expect(response.statusCode).toBe(200);
    const second = await asUser('ana', 'PATCH', { default_sla_minutes: 90 });
    expect(second.statusCode).toBe(200);

    const stored = (await h.request('GET', url)).json();
    expect(stored).toMatchObject({
      aws_discount_pct: 22.5,
      dbu_discount_pct: 30,
      azure_discount_pct: 0,
      default_sla_minutes: 90,
      updated_by: 'user:ana',
    });
    expect(stored.updated_at).toBeGreaterThan(0);
    const audit = await h.services.store.db
      .selectFrom('audit_log')
      .selectAll()
      .where('entity', '=', 'organization')
      .orderBy('id', 'asc')
      .execute();
    expect(audit.map((entry) => [entry.action, entry.actor])).toEqual([
      ['update', 'user:ana'],
      ['update', 'user:ana'],
    ]);
    expect(JSON.parse(audit[0]!.detail)).toEqual({
      changed: { aws_discount_pct: { from: 0, to: 22.5 }, dbu_discount_pct: { from: 0, to: 30 } },
    });
  });

  it('lets editors and viewers read the settings but not change them', async () => {
    for (const username of ['eda', 'vic']) {
      expect((await asUser(username, 'GET')).statusCode).toBe(200);
      const refused = await asUser(username, 'PATCH', { dbu_discount_pct: 99 });
      expect(refused.statusCode).toBe(403);
    }
    expect((await h.request('GET', url)).json().dbu_discount_pct).toBe(30);
  });

  it.each([
    [{ aws_discount_pct: 101 }, 'aws_discount_pct'],
    [{ dbu_discount_pct: -1 }, 'dbu_discount_pct'],
    [{ azure_discount_pct: '10' }, 'azure_discount_pct'],
    [{ default_preference: 'cheapest' }, 'default_preference'],
    [{ default_sla_minutes: 0 }, 'default_sla_minutes'],
    [{ discount: 10 }, 'discount'],
  ])('refuses %j with a 400 naming the field', async (body, field) => {
    const response = await h.request('PATCH', url, body);

    expect(response.status).toBe(400);
    expect(response.body).toContain(field);
    expect((await h.request('GET', url)).json().dbu_discount_pct).toBe(30);
  });

  it('starts new projects from the defaults unless their creator chose otherwise', async () => {
    await h.request('PATCH', url, { default_preference: 'balanced', default_sla_minutes: 45 });

    const plain = (await h.request('POST', '/api/v1/projects', { name: 'plain' })).json();
    const chosen = (
      await h.request('POST', '/api/v1/projects', {
        name: 'chosen',
        settings: { slaMinutes: null, preference: 'performance' },
      })
    ).json();

    expect(plain.settings).toMatchObject({ slaMinutes: 45, preference: 'balanced' });
    expect(chosen.settings).toMatchObject({ slaMinutes: null, preference: 'performance' });
  });

  it('keeps the default apply mode and the auto-apply switch of earlier versions in agreement', async () => {
    const switched = (await h.request('PATCH', url, { default_auto_apply: true })).json();
    expect(switched).toMatchObject({ default_apply_mode: 'auto', default_auto_apply: true });
    const moded = (await h.request('PATCH', url, { default_apply_mode: 'approve-learning' })).json();
    expect(moded).toMatchObject({ default_apply_mode: 'approve-learning', default_auto_apply: true });

    const plain = (await h.request('POST', '/api/v1/projects', { name: 'approving' })).json();
    expect(plain.settings).toMatchObject({ applyMode: 'approve-learning', autoApply: true });
    // a creator who names only the switch (a client of an earlier version) turns it off: manual
    const off = (
      await h.request('POST', '/api/v1/projects', { name: 'recommend only', settings: { autoApply: false } })
    ).json();
    expect(off.settings).toMatchObject({ applyMode: 'manual', autoApply: false });
    const bad = await h.request('PATCH', url, { default_apply_mode: 'always' });
    expect(bad.status).toBe(400);
    expect(bad.json().error.message).toContain('default_apply_mode');
    await h.request('PATCH', url, { default_apply_mode: 'manual' });
  });
}

describe('organization settings API on SQLite', () => {
  organizationSettingsSuite(async () => undefined);
});

describeFull('organization settings API on PostgreSQL', 'PostgreSQL', () => {
  let database: TestPostgresDatabase | undefined;
  afterAll(async () => {
    await database?.drop();
  });
  organizationSettingsSuite(async () => {
    database = await createTestPostgresDatabase();
    return database.url;
  });
});
