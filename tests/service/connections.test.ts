import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { databricksPlatform } from 'setpoint/platforms/databricks/databricks-platform';
import { emrPlatform } from 'setpoint/platforms/emr/emr-platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blackHole } from '../support/black-hole.js';
import { createHarness, type Harness } from './support/service-harness.js';

type Answer = (request: IncomingMessage, body: string, response: ServerResponse) => void;

async function answering(answer: Answer): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => answer(request, body, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

const awsJson = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
  response.end(JSON.stringify(body));
};

/**
 * Amazon EMR as the AWS JSON 1.1 protocol answers it: no recent cluster, and "not valid" for the probe
 * cluster the access check asks about (which proves the permission is held).
 */
const emrAnswer: Answer = (request, _body, response) => {
  const operation = String(request.headers['x-amz-target'] ?? '').split('.')[1];
  if (operation === 'ListClusters') return awsJson(response, 200, { Clusters: [] });
  awsJson(response, 400, {
    __type: 'InvalidRequestException',
    Message: "Cluster id 'j-SETPOINTPROBE' is not valid.",
  });
};

/** AWS's answer to access keys it does not know. */
const emrRefusing: Answer = (_request, _body, response) =>
  awsJson(response, 400, {
    __type: 'UnrecognizedClientException',
    message: 'The security token included in the request is invalid.',
  });

/** A workspace whose SCIM `Me` signs the token in; Databricks' 403 for a token it does not know. */
const databricksAnswer: Answer = (request, _body, response) => {
  response.setHeader('content-type', 'application/json');
  if (request.headers.authorization === `Bearer ${databricksToken}` && request.url?.includes('/scim/v2/Me')) {
    response.writeHead(200);
    response.end(JSON.stringify({ id: '1', userName: 'optimizer@example.com' }));
    return;
  }
  response.writeHead(403);
  response.end(JSON.stringify({ error_code: 403, message: 'Invalid access token.' }));
};

const databricksToken = 'dapi-known-here-0123456789';
const accessKeyId = 'AKIAIOSFODNN7EXAMPLE';
const secretAccessKey = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

const databricksSettings = (host: string, token = databricksToken) => ({
  cloud: 'aws',
  region: 'us-east-1',
  host,
  plan_type: 'Premium',
  credentials: { token },
});

const emrSettings = (endpoint: string) => ({
  region: 'us-east-1',
  endpoint,
  credentials: { kind: 'access-keys', access_key_id: accessKeyId, secret_access_key: secretAccessKey },
});

describe('one connect route set for every platform: add, check, remove, bad input', () => {
  let h: Harness;
  let hole: Awaited<ReturnType<typeof blackHole>>;
  const servers: Server[] = [];
  let workspace: string;
  let refusingWorkspace: string;
  let emr: string;
  let refusingEmr: string;

  beforeAll(async () => {
    hole = await blackHole();
    for (const [answer, set] of [
      [databricksAnswer, (url: string) => (workspace = url)],
      [databricksAnswer, (url: string) => (refusingWorkspace = url)],
      [emrAnswer, (url: string) => (emr = url)],
      [emrRefusing, (url: string) => (refusingEmr = url)],
    ] as const) {
      const started = await answering(answer);
      servers.push(started.server);
      set(started.url);
    }
    h = await createHarness({
      config: { outboundAllowList: '127.0.0.1' },
      // each sign-in's limit, shortened so the test does not wait the default 10 s
      platforms: [databricksPlatform({ transport: { requestTimeoutMs: 300 } }), emrPlatform()],
      connectionLimits: { signInMs: 300, checkMs: 5_000 },
    });
  });

  afterAll(async () => {
    await h?.close();
    await hole?.close();
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
  });

  const connectionCount = async () => (await h.request('GET', '/api/v1/connections')).json().items.length;

  it('names the platforms accounts can be connected for', async () => {
    const response = await h.request('GET', '/api/v1/connections/platforms');
    expect(response.json()).toEqual({ platforms: ['databricks', 'emr'] });
  });

  it('adds a Databricks workspace after one sign-in, shows no secret, checks it and removes it', async () => {
    const added = await h.request('POST', '/api/v1/connections', {
      platform: 'databricks',
      name: 'analytics',
      settings: databricksSettings(workspace),
    });
    expect(added.status).toBe(201);
    const connection = added.json();
    expect(connection).toMatchObject({
      platform: 'databricks',
      name: 'analytics',
      settings: { cloud: 'aws', host: workspace, plan_type: 'Premium', has_credentials: true },
    });
    expect(added.body).not.toContain(databricksToken);
    // signed in, but the token may read nothing else here: the check says so line by line
    const check = await h.request('POST', `/api/v1/connections/${connection.id}/check`, {});
    expect(check.status).toBe(200);
    expect(check.json()).toMatchObject({ ok: false, reachable: true });
    expect(check.json().lines[0]).toMatchObject({ check: 'authenticate', ok: true });
    expect(check.json().lines).toContainEqual(expect.objectContaining({ check: 'list jobs', ok: false }));
    // the deprecated workspace routes answer for the same record
    const alias = await h.request('GET', `/api/v1/workspaces/${connection.id}`);
    expect(alias.json()).toMatchObject({ id: connection.id, platform: 'databricks', has_credentials: true });

    const removed = await h.request('DELETE', `/api/v1/connections/${connection.id}`);
    expect(removed.status).toBe(204);
    expect((await h.request('GET', `/api/v1/connections/${connection.id}`)).status).toBe(404);
    expect(await connectionCount()).toBe(0);
  });

  it('refuses a Databricks token the workspace refuses, and registers nothing', async () => {
    const response = await h.request('POST', '/api/v1/connections', {
      platform: 'databricks',
      name: 'analytics',
      settings: databricksSettings(refusingWorkspace, 'dapi-not-known-here'),
    });
    expect(response.status).toBe(400);
    expect(response.json().error.code).toBe('CONNECTION_SIGN_IN_REFUSED');
    expect(response.json().error.message).toMatch(
      /^analytics: authenticate failed: the workspace refused the token: .*nothing was registered$/,
    );
    expect(response.body).not.toContain('dapi-not-known-here');
    expect(await connectionCount()).toBe(0);
  });

  it('names a black-holed Databricks workspace unreachable after one attempt, with what was tried', async () => {
    const before = hole.connections();
    const response = await h.request('POST', '/api/v1/connections', {
      platform: 'databricks',
      name: 'analytics',
      settings: databricksSettings(hole.url),
    });
    expect(response.status).toBe(502);
    expect(response.json().error.code).toBe('CONNECTION_UNREACHABLE');
    expect(response.json().error.message).toMatch(
      /reach workspace failed: unreachable: .*\(tried GET http:\/\/127\.0\.0\.1:\d+\/api\/2\.0\/preview\/scim\/v2\/Me once, 0\.3 s limit\)/,
    );
    expect(hole.connections() - before).toBe(1);
    expect(await connectionCount()).toBe(0);

    // stored without the sign-in, its check answers with one line: unreachable
    const stored = await h.request('POST', '/api/v1/connections', {
      platform: 'databricks',
      name: 'analytics',
      settings: databricksSettings(hole.url),
      check_sign_in: false,
    });
    expect(stored.status).toBe(201);
    const check = await h.request('POST', `/api/v1/connections/${stored.json().id}/check`, {});
    expect(check.status).toBe(200);
    expect(check.json()).toEqual({
      ok: false,
      reachable: false,
      lines: [
        {
          check: 'reach workspace',
          ok: false,
          detail: expect.stringMatching(/^unreachable: .*tried GET http:\/\/127\.0\.0\.1:\d+\/api\/2\.0/),
          fix: expect.stringMatching(/Setpoint server can reach it/),
        },
      ],
    });
    await h.request('DELETE', `/api/v1/connections/${stored.json().id}`);
  });

  it('adds an EMR account after one sign-in, shows a key hint only, checks every permission and removes it', async () => {
    const added = await h.request('POST', '/api/v1/connections', {
      platform: 'emr',
      name: 'data-platform',
      settings: emrSettings(emr),
    });
    expect(added.status).toBe(201);
    const connection = added.json();
    expect(connection).toMatchObject({
      platform: 'emr',
      settings: {
        region: 'us-east-1',
        credential_kind: 'access-keys',
        access_key_id_hint: '…MPLE',
        endpoint: emr,
        grouping: { kind: 'tag', key: 'setpoint:project-id' },
      },
    });
    expect(added.body).not.toContain(secretAccessKey);
    expect(added.body).not.toContain(accessKeyId);

    const check = await h.request('POST', `/api/v1/connections/${connection.id}/check`, {});
    expect(check.status).toBe(200);
    expect(check.json().ok).toBe(true);
    expect(check.json().reachable).toBe(true);
    expect(check.json().lines).toContainEqual({
      check: 'elasticmapreduce:ListClusters (collect)',
      ok: true,
      detail: 'held: allowed (no cluster in the last 30 days)',
      fix: null,
    });

    // the deprecated EMR account routes answer for the same account, and it goes with the connection
    const alias = await h.request('GET', '/api/v1/emr/accounts');
    expect(alias.json().items.map((item: { id: string }) => item.id)).toEqual([connection.id]);
    expect((await h.request('DELETE', `/api/v1/connections/${connection.id}`)).status).toBe(204);
    expect((await h.request('GET', '/api/v1/emr/accounts')).json().items).toEqual([]);
  });

  it('refuses EMR access keys AWS does not know, and registers nothing', async () => {
    const response = await h.request('POST', '/api/v1/connections', {
      platform: 'emr',
      name: 'data-platform',
      settings: emrSettings(refusingEmr),
    });
    expect(response.status).toBe(400);
    expect(response.json().error.code).toBe('CONNECTION_SIGN_IN_REFUSED');
    expect(response.json().error.message).toMatch(
      /^data-platform: authenticate failed: AWS refused the credentials: .*UnrecognizedClientException.*nothing was registered$/,
    );
    expect(await connectionCount()).toBe(0);
  });

  it('names a black-holed EMR endpoint unreachable within the sign-in limit, with what was tried', async () => {
    const before = hole.connections();
    const response = await h.request('POST', '/api/v1/connections', {
      platform: 'emr',
      name: 'data-platform',
      settings: emrSettings(hole.url),
    });
    expect(response.status).toBe(502);
    expect(response.json().error.code).toBe('CONNECTION_UNREACHABLE');
    expect(response.json().error.message).toMatch(
      /reach account failed: unreachable: .*\(tried EMR ListClusters at http:\/\/127\.0\.0\.1:\d+ once, 0\.3 s limit\)/,
    );
    expect(hole.connections() - before).toBe(1);
    expect(await connectionCount()).toBe(0);

    const stored = await h.request('POST', '/api/v1/connections', {
      platform: 'emr',
      name: 'data-platform',
      settings: emrSettings(hole.url),
      check_sign_in: false,
    });
    expect(stored.status).toBe(201);
    const check = await h.request('POST', `/api/v1/connections/${stored.json().id}/check`, {});
    expect(check.json()).toMatchObject({ ok: false, reachable: false });
    expect(check.json().lines).toHaveLength(1);
    expect(check.json().lines[0].detail).toMatch(/tried EMR ListClusters at http:\/\/127\.0\.0\.1:\d+ once/);
    await h.request('DELETE', `/api/v1/connections/${stored.json().id}`);
  });

  it('answers bad input with a 400 naming the field, under the envelope or the platform', async () => {
    const cases: [unknown, string][] = [
      [{ platform: 'hadoop', name: 'x', settings: {} }, '/platform'],
      [{ platform: 'emr', settings: emrSettings(emr) }, '/name'],
      [
        { platform: 'emr', name: 'x', settings: { ...emrSettings(emr), region: 'Virginia' } },
        '/settings/region',
      ],
      [
        {
          platform: 'emr',
          name: 'x',
          settings: { ...emrSettings(emr), credentials: { kind: 'access-keys', access_key_id: 'short' } },
        },
        '/settings/credentials/access_key_id',
      ],
      [{ platform: 'databricks', name: 'x', settings: { cloud: 'aws' } }, '/settings/host'],
    ];
    for (const [body, field] of cases) {
      const response = await h.request('POST', '/api/v1/connections', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.json().error.code).toBe('VALIDATION_FAILED');
      expect(response.json().error.message).toContain(field);
    }
    expect(await connectionCount()).toBe(0);

    const stored = await h.request('POST', '/api/v1/connections', {
      platform: 'emr',
      name: 'data-platform',
      settings: emrSettings(emr),
    });
    const check = await h.request('POST', `/api/v1/connections/${stored.json().id}/check`, {
      options: { log_locations: ['https://bucket/prefix'] },
    });
    expect(check.status).toBe(400);
    expect(check.json().error.message).toContain('/options/log_locations/0');
    expect((await h.request('POST', '/api/v1/connections/wsp_missing/check', {})).status).toBe(404);
    await h.request('DELETE', `/api/v1/connections/${stored.json().id}`);
  });

  it('never writes a secret to the log', () => {
    const log = h.logLines().join('\n');
    expect(log.length).toBeGreaterThan(0);
    for (const secret of [databricksToken, secretAccessKey, 'dapi-not-known-here'])
      expect(log).not.toContain(secret);
  });
});
