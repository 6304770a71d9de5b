import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CredentialSigner } from 'setpoint/security/credentials';
import { loadKeyMaterial } from 'setpoint/security/key-material';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { describeFull } from '../support/tiers.js';
import { fixtureFile, multipartBody } from './support/multipart.js';
import { createHarness, eventually, fixturesDir, type Harness } from './support/service-harness.js';

// Whole pipelines run in these tests; a busy shared machine can make them slow.
vi.setConfig({ testTimeout: 150_000, hookTimeout: 150_000 });

const workspaceToken = 'dapi0123456789abcdef-workspace-token';
const webhookPassword = 'hook-password-5f2a9c';

/** Fills route parameters with ids of real records so authorized calls reach the handlers. */
function concreteUrl(url: string, ids: Record<string, string>): string {
  return url.replace(/:(\w+)/g, (_, name: string) => ids[name] ?? 'missing');
}

function securitySuite(databaseUrl: () => Promise<string | undefined>) {
  let h: Harness;
  let revokedToken: string;
  let secrets: string[];
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    h = await createHarness({
      startWorkers: true,
      databaseUrl: await databaseUrl(),
      config: { logLevel: 'trace' },
    });
    const revoked = await h.services.apiKeys.create('revoked', 'test');
    revokedToken = (await h.services.apiKeys.exchange(revoked.id, revoked.secret)).accessToken;
    await h.services.apiKeys.revoke(revoked.id, 'test');

    const workspace = (
      await h.request('POST', '/api/v1/workspaces', {
        name: 'prod',
        cloud: 'aws',
        credentials: { token: workspaceToken },
        webhook_credentials: { username: 'setpoint', password: webhookPassword },
      })
    ).json();
    const project = (
      await h.request('POST', '/api/v1/projects', { name: 'secure', workspace_id: workspace.id })
    ).json();
    const upload = multipartBody([
      {
        name: 'eventlog',
        filename: 'eventlog',
        content: fixtureFile(fixturesDir, 'databricks-aws-eventlog'),
      },
      { name: 'cluster_report', content: fixtureFile(fixturesDir, 'cluster-report.json').toString('utf8') },
      { name: 'external_run_id', content: 'sec-1' },
    ]);
    const run = (
      await h.app.inject({
        method: 'POST',
        url: `/api/v1/projects/${project.id}/runs`,
        headers: { ...upload.headers, authorization: `Bearer ${h.token}` },
        payload: upload.payload,
      })
    ).json();
    const rec = await eventually(async () => {
      const response = await h.request('GET', `/api/v1/projects/${project.id}/recommendations/latest`);
      return response.status === 200 ? response.json() : undefined;
    });
    Object.assign(ids, { id: project.id, runId: run.id, rid: rec.id });
    ids.workspace = workspace.id;
    const material = loadKeyMaterial({ dataDir: h.dataDir });
    secrets = [
      workspaceToken,
      webhookPassword,
      h.key.secret,
      h.token,
      material.serverSecret.toString('base64'),
      ...material.masterKeys.map((key) => key.key.toString('base64')),
    ];
  });

  afterAll(async () => {
    await h.close();
  });

  it('knows every route and treats only health, OpenAPI, the token exchange, the webhook receiver (Basic auth of its own) and the dashboard as public', () => {
    const publicApi = h.app.routeTable.filter(
      (route) => route.public && (route.url.startsWith('/api/') || route.url === '/metrics'),
    );
    expect(publicApi.map((route) => `${route.method} ${route.url}`).sort()).toEqual([
      'GET /api/v1/openapi.json',
      'GET /api/v1/session/demo',
      'POST /api/v1/auth/token',
      'POST /api/v1/session',
      'POST /api/v1/webhooks/databricks/:workspaceId',
    ]);
    expect(h.app.routeTable.filter((route) => !route.public).length).toBeGreaterThanOrEqual(20);
  });

  it('rejects missing, malformed, forged, expired and revoked credentials on every non-public route', async () => {
    const signer = new CredentialSigner(loadKeyMaterial({ dataDir: h.dataDir }).serverSecret);
    const expired = signer.issueAccessToken({ keyId: h.key.id, expiresAt: Date.now() - 1000 });
    const forged = new CredentialSigner(Buffer.alloc(32, 7)).issueAccessToken({
      keyId: h.key.id,
      expiresAt: Date.now() + 60_000,
    });
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer' },
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: `Bearer ${h.key.secret}` },
      { authorization: `Bearer ${forged}` },
      { authorization: `Bearer ${expired}` },
      { authorization: `Bearer ${revokedToken}` },
    ];
    const protectedRoutes = h.app.routeTable.filter((route) => !route.public);
    for (const route of protectedRoutes) {
      for (const headers of attempts) {
        const response = await h.app.inject({
          method: route.method as 'GET',
          url: concreteUrl(route.url, ids),
          headers: { ...headers, 'content-type': 'application/json' },
          payload: route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}',
        });
        expect(
          response.statusCode,
          `${route.method} ${route.url} with ${JSON.stringify(headers).slice(0, 40)}`,
        ).toBe(401);
        expect(response.json().error.code).toBe('UNAUTHORIZED');
      }
    }
  });

  it('never returns a secret from any endpoint', async () => {
    const readable = h.app.routeTable.filter((route) => route.method === 'GET');
    expect(readable.length).toBeGreaterThanOrEqual(10);
    for (const route of readable) {
      const response = await h.app.inject({
        method: 'GET',
        url: concreteUrl(route.url, {
          ...ids,
          id: route.url.includes('workspaces') ? (ids.workspace ?? '') : (ids.id ?? ''),
        }),
        headers: { authorization: `Bearer ${h.token}` },
      });
      for (const secret of secrets.filter((s) => s !== h.token)) {
        expect(response.body.includes(secret), `${route.url} leaks a secret`).toBe(false);
      }
    }
    const exchange = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/token',
      payload: { api_key_id: h.key.id, api_key_secret: h.key.secret },
    });
    expect(exchange.body).not.toContain(h.key.secret);
  });

  it('stores no plaintext secret in the database', async () => {
    let bytes: Buffer;
    if (h.services.store.dialect === 'sqlite') {
      const files = ['setpoint.db', 'setpoint.db-wal']
        .map((name) => path.join(h.dataDir, name))
        .filter((file) => existsSync(file));
      expect(files.length).toBeGreaterThan(0);
      bytes = Buffer.concat(files.map((file) => readFileSync(file)));
    } else {
      const db = h.services.store.db;
      const tables = await Promise.all([
        db.selectFrom('workspaces').selectAll().execute(),
        db.selectFrom('api_keys').selectAll().execute(),
        db.selectFrom('audit_log').selectAll().execute(),
        db.selectFrom('projects').selectAll().execute(),
      ]);
      bytes = Buffer.from(JSON.stringify(tables));
    }
    expect(bytes.includes(Buffer.from('secure'))).toBe(true);
    for (const secret of secrets)
      expect(bytes.includes(Buffer.from(secret)), 'a secret is stored in plaintext').toBe(false);
  });

  it('writes no secret into any log line', async () => {
    await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/token',
      payload: { api_key_id: h.key.id, api_key_secret: 'sps_wrong' },
    });
    const lines = h.logLines();
    expect(lines.some((line) => line.includes('"reqId"'))).toBe(true);
    for (const secret of secrets)
      expect(
        lines.some((line) => line.includes(secret)),
        'a log line holds a secret',
      ).toBe(false);
  });

  it('rate-limits per API key', async () => {
    const limited = await createHarness({ config: { rateLimitPerMinute: 3 } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i += 1) statuses.push((await limited.request('GET', '/api/v1/projects')).status);
      const other = await limited.services.apiKeys.create('other', 'test');
      const otherToken = (await limited.services.apiKeys.exchange(other.id, other.secret)).accessToken;
      const otherResponse = await limited.app.inject({
        method: 'GET',
        url: '/api/v1/projects',
        headers: { authorization: `Bearer ${otherToken}` },
      });

      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect(otherResponse.statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('sends CORS headers only for configured origins', async () => {
    const closed = await h.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { origin: 'https://evil.example' },
    });
    expect(closed.headers['access-control-allow-origin']).toBeUndefined();

    const open = await createHarness({ config: { corsOrigins: ['https://setpoint.example'] } });
    try {
      const allowed = await open.app.inject({
        method: 'GET',
        url: '/healthz',
        headers: { origin: 'https://setpoint.example' },
      });
      expect(allowed.headers['access-control-allow-origin']).toBe('https://setpoint.example');
    } finally {
      await open.close();
    }
  });

  it('refuses JSON bodies over the body limit', async () => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x', description: 'y'.repeat(11 * 1024 * 1024) }),
    });
    expect(response.statusCode).toBe(413);
  });
}

describe('service security on SQLite', () => {
  securitySuite(async () => undefined);
});

describeFull('service security on PostgreSQL', 'PostgreSQL', () => {
  const databases: TestPostgresDatabase[] = [];
  afterAll(async () => {
    for (const database of databases) await database.drop();
  });
  securitySuite(async () => {
    const database = await createTestPostgresDatabase();
    databases.push(database);
    return database.url;
  });
});
