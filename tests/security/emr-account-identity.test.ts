/**
 * Issue 40: finding 4 (an editor could connect an EMR account that signs with the server's own AWS
 * identity, against any endpoint; sts_endpoint was checked only when the account was connected), finding
 * 6 (renaming an EMR account through PATCH /api/v1/workspaces/:id made it a Databricks workspace), and
 * the Low item on the access check (permissions reported "held" by any endpoint that answers 200).
 * Through the API of the real services, against HTTP listeners on loopback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness, signedInHeaders } from '../service/support/service-harness.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const keys = {
  kind: 'access-keys',
  access_key_id: 'AKIAEXAMPLEKEY00',
  secret_access_key: 'not-a-real-secret',
};

/** An endpoint that answers 200 `{}` to every request, and counts them. */
async function yesEndpoint(): Promise<{ url: string; requests: () => number; server: Server }> {
  let requests = 0;
  const server = createServer((request, response) => {
    requests += 1;
    request.resume();
    response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
    response.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    server,
  };
}

describe('EMR accounts: the server identity, endpoints on every use, and partial updates', () => {
  let h: Harness;
  let endpoint: Awaited<ReturnType<typeof yesEndpoint>>;
  let editor: Record<string, string>;

  beforeAll(async () => {
    endpoint = await yesEndpoint();
    h = await createHarness({ config: { outboundAllowList: new URL(endpoint.url).host } });
    await h.services.users.create('eda', 'editor password 1', 'editor');
    editor = await signedInHeaders(h, 'eda', 'editor password 1');
  });

  afterAll(async () => {
    await h?.close();
    endpoint?.server.close();
  });

  const asEditor = async (method: 'POST' | 'PATCH', url: string, payload: object) => {
    const response = await h.app.inject({ method, url, headers: editor, payload });
    return { status: response.statusCode, json: () => response.json() };
  };
  const account = (credentials: object, extra: object = {}) => ({
    name: 'analytics',
    region: 'us-east-1',
    credentials,
    endpoint: endpoint.url,
    ...extra,
  });

  it("lets only an admin connect an account that signs in as the server's own identity", async () => {
    const serverIdentity = [
      { kind: 'default-chain' },
      { kind: 'assume-role', role_arn: 'arn:aws:iam::123456789012:role/setpoint' },
    ];
    for (const credentials of serverIdentity) {
      const byEditor = await asEditor('POST', '/api/v1/emr/accounts', account(credentials));
      expect(byEditor.status, credentials.kind).toBe(403);
      expect(byEditor.json().error.message).toMatch(/server's AWS identity/);
    }
    expect(endpoint.requests()).toBe(0);
    // the editor's own keys are the editor's to use; an admin may use the server's identity
    expect((await asEditor('POST', '/api/v1/emr/accounts', account(keys))).status).toBe(201);
    const byAdmin = await h.request('POST', '/api/v1/emr/accounts', account({ kind: 'default-chain' }));
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.json().credential_kind).toBe('default-chain');
  });

  it('refuses an STS endpoint the outbound rule refuses when the account is connected', async () => {
    const refused = await h.request(
      'POST',
      '/api/v1/emr/accounts',
      account(
        { kind: 'assume-role', role_arn: 'arn:aws:iam::123456789012:role/setpoint', source: keys },
        { sts_endpoint: 'http://127.0.0.1:1' },
      ),
    );
    expect(refused.status).toBe(400);
    expect(refused.json().error.message).toMatch(/sts_endpoint: .*loopback address \(port 1\)/);
  });

  it('reports no permission as held by an endpoint that answers for a cluster that does not exist', async () => {
    const created = await h.request('POST', '/api/v1/emr/accounts', account(keys, { name: 'impostor' }));
    const check = await h.request('POST', `/api/v1/emr/accounts/${created.json().id}/check`, {});
    expect(check.status).toBe(200);
    const lines = check.json().checks as Array<{ permission: string; status: string; detail: string }>;
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.filter((line) => line.status === 'held')).toEqual([]);
    expect(lines[0]?.detail).toMatch(/does not behave like EMR/);
    expect(check.json().ok).toBe(false);
  });

  it('keeps an EMR account an EMR account when it is renamed, and changes nothing else through the workspace routes', async () => {
    const created = await h.request('POST', '/api/v1/emr/accounts', account(keys, { name: 'to rename' }));
    const id = created.json().id as string;
    const renamed = await h.request('PATCH', `/api/v1/workspaces/${id}`, { name: 'renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'renamed', platform: 'emr' });
    const listed = (await h.request('GET', '/api/v1/emr/accounts')).json().items as Array<{ id: string }>;
    expect(listed.map((item) => item.id)).toContain(id);

    const retargeted = await asEditor('PATCH', `/api/v1/workspaces/${id}`, {
      credentials: { kind: 'default-chain', sts_endpoint: 'https://sts.example.com' },
    });
    expect(retargeted.status).toBe(400);
    expect(retargeted.json().error.code).toBe('WORKSPACE_MANAGED_BY_PLATFORM');
    const toDatabricks = await h.request('PATCH', `/api/v1/workspaces/${id}`, { platform: 'databricks' });
    expect(toDatabricks.status).toBe(400);
    expect((await h.request('GET', `/api/v1/emr/accounts/${id}`)).json()).toMatchObject({
      name: 'renamed',
      credential_kind: 'access-keys',
    });
  });

  it('checks the endpoint again on every use: taken off the allow-list, it receives nothing', async () => {
    const created = await h.request('POST', '/api/v1/emr/accounts', account(keys, { name: 'later refused' }));
    const id = created.json().id as string;
    const dataDir = h.dataDir;
    await h.close();
    h = await createHarness({ dataDir, config: { outboundAllowList: '' } });
    const before = endpoint.requests();
    const check = await h.request('POST', `/api/v1/emr/accounts/${id}/check`, {});
    expect(check.status).toBe(200);
    expect(check.json().checks[0].detail).toMatch(/loopback address/);
    expect(endpoint.requests()).toBe(before);
  });
});
