import { createServer as createHttpServer, type Server } from 'node:http';
import { databricksPlatform } from 'setpoint/platforms/databricks/databricks-platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../service/support/service-harness.js';
import { blackHole } from '../support/black-hole.js';

/**
 * Databricks' answer to a personal access token it does not know: HTTP 403 with a numeric error_code
 * (as databricks-sdk-go issue #873 and the Terraform provider's logs show it).
 */
async function refusingWorkspace(): Promise<{ url: string; server: Server }> {
  const server = createHttpServer((_request, response) => {
    response.writeHead(403, {
      'content-type': 'application/json; charset=utf-8',
      'x-databricks-reason-phrase': 'Invalid access token.',
    });
    response.end(JSON.stringify({ error_code: 403, message: 'Invalid access token.' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

const workspaceBody = (host: string, extra: Record<string, unknown> = {}) => ({
  name: 'analytics',
  platform: 'databricks',
  cloud: 'aws',
  region: 'us-east-1',
  host,
  plan_type: 'Premium',
  credentials: { token: 'dapi-not-known-here' },
  ...extra,
});

describe('signing in to a workspace: bounded, one reason, nothing registered on failure', () => {
  let h: Harness;
  let hole: Awaited<ReturnType<typeof blackHole>>;
  let refusing: Awaited<ReturnType<typeof refusingWorkspace>>;

  beforeAll(async () => {
    hole = await blackHole();
    refusing = await refusingWorkspace();
    h = await createHarness({
      config: { outboundAllowList: '127.0.0.1' },
      // each attempt's limit, shortened so the test does not wait the default 10 s sign-in limit
      platforms: [databricksPlatform({ transport: { requestTimeoutMs: 300 } })],
    });
  });

  afterAll(async () => {
    await h?.close();
    await hole?.close();
    await new Promise((resolve) => refusing?.server.close(resolve));
  });

  const workspaceCount = async () => (await h.request('GET', '/api/v1/workspaces')).json().items.length;

  it('a black-holed host is refused at creation as unreachable, after one attempt', async () => {
    const response = await h.request(
      'POST',
      '/api/v1/workspaces',
      workspaceBody(hole.url, { check_sign_in: true }),
    );
    expect(response.status).toBe(502);
    const error = response.json().error;
    expect(error.code).toBe('WORKSPACE_UNREACHABLE');
    expect(error.message).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+: reach workspace failed: unreachable: no answer from http:\/\/127\.0\.0\.1:\d+ within 0\.3 s \(tried GET http:\/\/127\.0\.0\.1:\d+\/api\/2\.0\/preview\/scim\/v2\/Me once, 0\.3 s limit\); fix: check the host.*; nothing was registered$/,
    );
    expect(hole.connections()).toBe(1);
    expect(await workspaceCount()).toBe(0);
  });

  it('the access check of a black-holed workspace completes with one line: unreachable', async () => {
    const created = await h.request('POST', '/api/v1/workspaces', workspaceBody(hole.url));
    expect(created.status).toBe(201);
    const check = await h.request('POST', `/api/v1/workspaces/${created.json().id}/check`, {});
    expect(check.status).toBe(200);
    expect(check.json()).toEqual({
      ok: false,
      checks: [
        {
          check: 'reach workspace',
          ok: false,
          detail: expect.stringMatching(
            /^unreachable: no answer from http:\/\/127\.0\.0\.1:\d+ within 0\.3 s/,
          ),
          fix: expect.stringMatching(/Setpoint server can reach it/),
        },
      ],
    });
    await h.request('DELETE', `/api/v1/workspaces/${created.json().id}`);
  });

  it('a token Databricks refuses (403 Invalid access token.) is refused at creation, naming the token', async () => {
    const response = await h.request(
      'POST',
      '/api/v1/workspaces',
      workspaceBody(refusing.url, { check_sign_in: true }),
    );
    expect(response.status).toBe(400);
    const error = response.json().error;
    expect(error.code).toBe('WORKSPACE_SIGN_IN_REFUSED');
    expect(error.message).toMatch(
      /authenticate failed: the workspace refused the token: PERMISSION_DENIED \(HTTP 403\): Invalid access token\.; fix: the token is wrong, expired or revoked/,
    );
    expect(response.body).not.toContain('dapi-not-known-here');
    expect(await workspaceCount()).toBe(0);
  });
});
