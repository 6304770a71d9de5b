import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ConnectionCheckResource } from '@setpoint/api-contract';
import type { DatabricksConnectionResource } from '@setpoint/api-contract/databricks';
import type { EmrConnectionResource } from '@setpoint/api-contract/emr';
import { databricksPlatform } from 'setpoint/platforms/databricks/databricks-platform';
import { emrPlatform } from 'setpoint/platforms/emr/emr-platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountOfConnection } from '../../web/src/api/emr-endpoints.js';
import { accessLinesOf, workspaceOfConnection } from '../../web/src/api/endpoints.js';
import { createHarness, type Harness } from './support/service-harness.js';

type Answer = (request: IncomingMessage, response: ServerResponse) => void;

async function answering(answer: Answer): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => answer(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

const awsJson = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
  response.end(JSON.stringify(body));
};

/**
 * Amazon EMR for an identity that may not list steps: no recent cluster, "not valid" for the probe
 * cluster (the permission is held), AccessDenied for ListSteps (a permission collection needs).
 */
const emrWithoutListSteps: Answer = (request, response) => {
  const operation = String(request.headers['x-amz-target'] ?? '').split('.')[1];
  if (operation === 'ListClusters') return awsJson(response, 200, { Clusters: [] });
  if (operation === 'ListSteps')
    return awsJson(response, 400, {
      __type: 'AccessDeniedException',
      Message: 'User is not authorized to perform: elasticmapreduce:ListSteps',
    });
  awsJson(response, 400, {
    __type: 'InvalidRequestException',
    Message: "Cluster id 'j-SETPOINTPROBE' is not valid.",
  });
};

/** A workspace that signs nothing in: its check fails at authenticate, with a fix. */
const databricksRefusing: Answer = (_request, response) => {
  response.writeHead(403, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ error_code: 403, message: 'Invalid access token.' }));
};

/**
 * The dashboard reads workspaces and EMR accounts through `/api/v1/connections` (and the CLI the same
 * way): what it shows must be what the deprecated platform routes answered, field for field.
 */
describe("the clients' reading of /api/v1/connections is what the deprecated routes answer", () => {
  let h: Harness;
  const servers: Server[] = [];
  let emr = '';
  let workspaceHost = '';

  beforeAll(async () => {
    for (const [answer, set] of [
      [emrWithoutListSteps, (url: string) => (emr = url)],
      [databricksRefusing, (url: string) => (workspaceHost = url)],
    ] as const) {
      const started = await answering(answer);
      servers.push(started.server);
      set(started.url);
    }
    h = await createHarness({
      config: { outboundAllowList: '127.0.0.1' },
      platforms: [databricksPlatform({ transport: { requestTimeoutMs: 2_000 } }), emrPlatform()],
      connectionLimits: { signInMs: 2_000, checkMs: 10_000 },
    });
  });

  afterAll(async () => {
    await h?.close();
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
  });

  it('a Databricks workspace and its access check', async () => {
    const added = await h.request('POST', '/api/v1/connections', {
      platform: 'databricks',
      name: 'analytics',
      settings: {
        cloud: 'aws',
        region: 'us-east-1',
        host: workspaceHost,
        plan_type: 'Premium',
        compute_type: 'Jobs Compute',
        credentials: { auth_type: 'pat', token: 'dapi-refused' },
      },
      check_sign_in: false,
    });
    expect(added.status).toBe(201);
    const connection: DatabricksConnectionResource = added.json();
    expect(workspaceOfConnection(connection)).toEqual(
      (await h.request('GET', `/api/v1/workspaces/${connection.id}`)).json(),
    );

    const check: ConnectionCheckResource = (
      await h.request('POST', `/api/v1/connections/${connection.id}/check`, { options: {} })
    ).json();
    const alias = (await h.request('POST', `/api/v1/workspaces/${connection.id}/check`, {})).json();
    expect(alias.checks.some((line: { ok: boolean; fix?: string }) => !line.ok && line.fix)).toBe(true);
    // the dashboard's access check lines
    expect({ ok: check.ok, checks: accessLinesOf(check) }).toEqual(alias);
  });

  it('an EMR account as the EMR pages show it', async () => {
    const added = await h.request('POST', '/api/v1/connections', {
      platform: 'emr',
      name: 'data-platform',
      settings: {
        region: 'us-east-1',
        endpoint: emr,
        credentials: {
          kind: 'access-keys',
          access_key_id: 'AKIAIOSFODNN7EXAMPLE',
          secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
        },
      },
      check_sign_in: false,
    });
    expect(added.status).toBe(201);
    const connection: EmrConnectionResource = added.json();
    expect(accountOfConnection(connection)).toEqual(
      (await h.request('GET', `/api/v1/emr/accounts/${connection.id}`)).json(),
    );
  });
});
