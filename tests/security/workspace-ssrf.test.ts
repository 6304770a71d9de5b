import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from 'setpoint/config/load-config';
import { type RunningServer, startServer } from 'setpoint/server/start-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { describeFull } from '../support/tiers.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const adminToken = 'dapi-admin-token-9f3e1c';

/** An HTTP listener that records what reaches it (the attacker's port, or an allow-listed host). */
interface Listener {
  url: string;
  seen: IncomingHttpHeaders[];
  server: Server;
}

function listen(host: string, answer: (url: string) => { status: number; location?: string }) {
  return new Promise<Listener>((resolve) => {
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((request, response) => {
      seen.push(request.headers);
      const { status, location } = answer(request.url ?? '/');
      response.writeHead(status, {
        'content-type': 'application/json',
        ...(location && { location }),
      });
      response.end(JSON.stringify({ jobs: [], has_more: false, secret_of_the_target: 'x'.repeat(100) }));
    });
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://${host}:${port}`, seen, server });
    });
  });
}

interface Client {
  // biome-ignore lint/suspicious/noExplicitAny: tests read response JSON by path and assert on it
  call(method: string, url: string, body?: unknown): Promise<{ status: number; json: any }>;
}

async function apiClient(server: RunningServer): Promise<Client> {
  const key = await server.services.apiKeys.create('ssrf', 'test');
  const { accessToken } = await server.services.apiKeys.exchange(key.id, key.secret);
  return client(server.url, { authorization: `Bearer ${accessToken}` });
}

async function editorClient(server: RunningServer): Promise<Client> {
  await server.services.users.create('eda', 'editor password 1', 'editor');
  const response = await fetch(`${server.url}/api/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'eda', password: 'editor password 1' }),
  });
  expect(response.status).toBe(200);
  const cookies = response.headers.getSetCookie().map((cookie) => cookie.split(';')[0]!);
  const csrf = cookies.find((cookie) => cookie.startsWith('setpoint_csrf='))!.split('=')[1]!;
  return client(server.url, { cookie: cookies.join('; '), 'x-csrf-token': csrf });
}

function client(base: string, headers: Record<string, string>): Client {
  return {
    async call(method, url, body) {
      const response = await fetch(`${base}${url}`, {
        method,
        headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, json: text ? JSON.parse(text) : undefined };
    },
  };
}

function ssrfSuite(databaseUrl: () => Promise<string | undefined>) {
  let dataDir: string;
  let server: RunningServer;
  let trustedHost: Listener;
  let attacker: Listener;
  let redirector: Listener;
  let admin: Client;
  let editor: Client;
  let databaseUrlValue: string | undefined;

  const start = (allowList: string) =>
    startServer(
      loadConfig(
        { dataDir, port: 0, ...(databaseUrlValue && { databaseUrl: databaseUrlValue }) },
        { SETPOINT_LOG_LEVEL: 'silent', SETPOINT_OUTBOUND_ALLOW_LIST: allowList },
      ),
      { withWorker: false },
    );

  beforeAll(async () => {
    databaseUrlValue = await databaseUrl();
    dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-ssrf-'));
    // 127.0.0.2 stands for a legitimate private host (an emulator, a MinIO); 127.0.0.1 is the target.
    attacker = await listen('127.0.0.1', () => ({ status: 200 }));
    trustedHost = await listen('127.0.0.2', () => ({ status: 200 }));
    redirector = await listen('127.0.0.2', () => ({ status: 302, location: `${attacker.url}/stolen` }));
    server = await start('127.0.0.2');
    admin = await apiClient(server);
    editor = await editorClient(server);
  });

  afterAll(async () => {
    await server?.stop();
    for (const listener of [attacker, trustedHost, redirector]) listener?.server.close();
  });

  const createWorkspace = async (host: string, credentials: Record<string, string> = { token: adminToken }) =>
    admin.call('POST', '/api/v1/workspaces', { name: 'prod', cloud: 'aws', host, credentials });

  it('refuses loopback, private, link-local and non-http hosts on create, in every encoding', async () => {
    const port = new URL(attacker.url).port;
    const refused = [
      `http://127.0.0.1:${port}`,
      `http://[::1]:${port}`,
      `http://localhost:${port}`,
      `http://2130706433:${port}`,
      `http://0x7f000001:${port}`,
      `http://127.1:${port}`,
      `http://[::ffff:127.0.0.1]:${port}`,
      'http://169.254.169.254',
      'http://[fd00:ec2::254]',
      'http://10.0.0.5',
      'file:///etc/passwd',
      'gopher://127.0.0.1:70/x',
      'javascript:alert(1)',
    ];
    for (const host of refused) {
      const response = await createWorkspace(host);
      expect(response.status, host).toBe(400);
      expect(response.json.error.code, host).toMatch(/OUTBOUND_URL_REFUSED|WORKSPACE_HOST_SCHEME/);
    }
    const endpoint = await createWorkspace('https://dbc-1.cloud.databricks.com', {
      token: adminToken,
      aws_access_key_id: 'AKIA',
      aws_secret_access_key: 'secret',
      s3_endpoint: `http://127.0.0.1:${port}`,
    });
    expect(endpoint.status).toBe(400);
    expect(endpoint.json.error.message).toMatch(/s3_endpoint.*loopback/);
    expect((await admin.call('GET', '/api/v1/workspaces')).json.items).toHaveLength(0);
    expect(attacker.seen).toHaveLength(0);
  });

  it('lets only an admin retarget a workspace, and clears its secrets when the host changes', async () => {
    const created = await createWorkspace('https://dbc-1.cloud.databricks.com');
    expect(created.status).toBe(201);
    const id = created.json.id as string;

    const byEditor = await editor.call('PATCH', `/api/v1/workspaces/${id}`, { host: trustedHost.url });
    expect(byEditor.status).toBe(403);
    const endpointByEditor = await editor.call('PATCH', `/api/v1/workspaces/${id}`, {
      credentials: { token: 'mine', s3_endpoint: 'https://s3.example.com' },
    });
    expect(endpointByEditor.status).toBe(403);
    const renamed = await editor.call('PATCH', `/api/v1/workspaces/${id}`, { name: 'prod-eu' });
    expect(renamed.status).toBe(200);
    expect(renamed.json.has_credentials).toBe(true);

    const toLoopback = await admin.call('PATCH', `/api/v1/workspaces/${id}`, { host: attacker.url });
    expect(toLoopback.status).toBe(400);

    const retargeted = await admin.call('PATCH', `/api/v1/workspaces/${id}`, { host: trustedHost.url });
    expect(retargeted.status).toBe(200);
    expect(retargeted.json).toMatchObject({ host: trustedHost.url, has_credentials: false });
    expect((await server.services.workspaces.credentials(id)).credentials).toBeNull();

    // Nothing of the old token reaches the new host: the check has no credentials to send.
    const check = await admin.call('POST', `/api/v1/workspaces/${id}/check`, {});
    expect(check.status).toBe(400);
    expect(trustedHost.seen.map((headers) => headers.authorization)).not.toContain(`Bearer ${adminToken}`);
  });

  it('never follows a redirect from an allow-listed host to a refused one', async () => {
    const created = await createWorkspace(redirector.url);
    expect(created.status).toBe(201);
    const check = await admin.call('POST', `/api/v1/workspaces/${created.json.id}/check`, {});
    expect(check.status).toBe(200);
    expect(check.json.ok).toBe(false);
    expect(JSON.stringify(check.json)).toMatch(/loopback address/);
    expect(JSON.stringify(check.json)).not.toContain('secret_of_the_target');
    expect(redirector.seen.length).toBeGreaterThan(0);
    expect(attacker.seen).toHaveLength(0);
  });

  it('never sends an Entra client secret on through a cross-origin 307', async () => {
    // both listeners are allow-listed; the token endpoint answers 307 to another origin (issue 40, finding 5)
    const collector = await listen('127.0.0.2', () => ({ status: 200 }));
    const authority = await listen('127.0.0.2', () => ({ status: 307, location: `${collector.url}/token` }));
    const bodies: string[] = [];
    collector.server.prependListener('request', (request) => {
      request.setEncoding('utf8').on('data', (chunk: string) => bodies.push(chunk));
    });
    try {
      const created = await createWorkspace(trustedHost.url, {
        auth_type: 'azure-client-secret',
        azure_tenant_id: '00000000-0000-4000-8000-000000000001',
        azure_client_id: '00000000-0000-4000-8000-000000000002',
        azure_client_secret: 'entra-secret-must-stay-home',
        azure_authority_host: authority.url,
      });
      expect(created.status).toBe(201);
      const check = await admin.call('POST', `/api/v1/workspaces/${created.json.id}/check`, {});
      expect(check.status).toBe(200);
      expect(check.json.ok).toBe(false);
      expect(JSON.stringify(check.json)).toMatch(/cross-origin 307/);
      expect(authority.seen.length).toBeGreaterThan(0);
      expect(collector.seen).toHaveLength(0);
      expect(bodies.join('')).not.toContain('entra-secret-must-stay-home');
    } finally {
      collector.server.close();
      authority.server.close();
    }
  });

  it('reaches an allow-listed host with its token', async () => {
    const created = await createWorkspace(trustedHost.url);
    expect(created.status).toBe(201);
    const check = await admin.call('POST', `/api/v1/workspaces/${created.json.id}/check`, {});
    expect(check.status).toBe(200);
    expect(trustedHost.seen.map((headers) => headers.authorization)).toContain(`Bearer ${adminToken}`);
  });

  it('refuses at request time a host and an S3 endpoint taken off the allow-list', async () => {
    const created = await createWorkspace(trustedHost.url, {
      token: adminToken,
      aws_access_key_id: 'AKIAEXAMPLE',
      aws_secret_access_key: 'not-a-real-secret',
      s3_endpoint: trustedHost.url,
    });
    expect(created.status).toBe(201);
    await server.stop();
    server = await start('');
    admin = await apiClient(server);
    const before = trustedHost.seen.length;
    const check = await admin.call('POST', `/api/v1/workspaces/${created.json.id}/check`, {
      log_destination: 's3://logs/setpoint',
    });
    expect(check.status).toBe(200);
    expect(check.json.ok).toBe(false);
    const detail = (name: string) =>
      (check.json.checks as Array<{ check: string; detail: string }>).find((line) => line.check === name)
        ?.detail;
    // the sign-in is refused before anything else is tried: one line, naming the setting that would allow it
    expect(check.json.checks).toHaveLength(1);
    expect(detail('reach workspace')).toMatch(
      /^not contacted: http:\/\/127\.0\.0\.2:\d+: 127\.0\.0\.2 is a loopback address .*SETPOINT_OUTBOUND_ALLOW_LIST=127\.0\.0\.2:\d+/,
    );
    expect(trustedHost.seen.length).toBe(before);
  });
}

describe('SSRF: workspace hosts and S3 endpoints on SQLite', () => {
  ssrfSuite(async () => undefined);
});

describeFull('SSRF: workspace hosts and S3 endpoints on PostgreSQL', 'PostgreSQL', () => {
  let database: TestPostgresDatabase | undefined;
  // Registered before the suite's own teardown: after-hooks run last-registered first, so the
  // server closes its pool before the database is dropped under it.
  afterAll(async () => {
    await database?.drop();
  });
  ssrfSuite(async () => {
    database = await createTestPostgresDatabase();
    return database.url;
  });
});
