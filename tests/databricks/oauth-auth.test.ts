import { type RunningEmulator, startEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import { defaultServicePrincipals } from '@setpoint/databricks-emulator/server/oauth';
import { DatabricksApiError } from 'setpoint/platforms/databricks/api/api-error';
import { createDatabricksClient } from 'setpoint/platforms/databricks/api/client';
import { createTransport } from 'setpoint/platforms/databricks/api/transport';
import { createBearerAuth } from 'setpoint/platforms/databricks/auth/token-source';
import { type WorkspaceAuth, workspaceAuthOf } from 'setpoint/platforms/databricks/auth/workspace-auth';
import { checkWorkspaceAccess } from 'setpoint/platforms/databricks/connection/access-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const databricksPrincipal = defaultServicePrincipals.find((principal) => principal.kind === 'databricks')!;
const entraPrincipal = defaultServicePrincipals.find((principal) => principal.kind === 'entra')!;

/** One clock for the issuer and the client, moved by the test: token expiry without waiting. */
let nowMs = Date.UTC(2026, 2, 2, 6, 0, 0);
let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    clockSpeed: 0,
    rateLimitScale: 0,
    oauth: { now: () => nowMs, tokenLifetimeSeconds: 3600 },
  });
});
afterAll(async () => emulator.close());

function clientFor(auth: WorkspaceAuth) {
  const bearer = createBearerAuth(auth, emulator.url, { now: () => nowMs });
  const transport = createTransport({ host: emulator.url, auth: bearer, retry: { maxAttempts: 1 } });
  return { bearer, client: createDatabricksClient({ transport }) };
}

async function firstJob(client: ReturnType<typeof clientFor>['client']) {
  for await (const job of client.listJobs(1)) return job;
  return undefined;
}

const kinds: Array<{ name: string; good: () => WorkspaceAuth; wrong: () => WorkspaceAuth }> = [
  {
    name: 'OAuth M2M with a Databricks service principal',
    good: () =>
      workspaceAuthOf({
        auth_type: 'oauth-m2m',
        client_id: databricksPrincipal.clientId,
        client_secret: databricksPrincipal.clientSecret,
      }),
    wrong: () =>
      workspaceAuthOf({
        auth_type: 'oauth-m2m',
        client_id: databricksPrincipal.clientId,
        client_secret: 'dose-not-the-secret',
      }),
  },
  {
    name: 'a Microsoft Entra ID service principal',
    good: () =>
      workspaceAuthOf({
        auth_type: 'azure-client-secret',
        azure_tenant_id: entraPrincipal.tenantId!,
        azure_client_id: entraPrincipal.clientId,
        azure_client_secret: entraPrincipal.clientSecret,
        azure_authority_host: emulator.url,
      }),
    wrong: () =>
      workspaceAuthOf({
        auth_type: 'azure-client-secret',
        azure_tenant_id: entraPrincipal.tenantId!,
        azure_client_id: entraPrincipal.clientId,
        azure_client_secret: 'not-the-secret',
        azure_authority_host: emulator.url,
      }),
  },
];

describe.each(kinds)('$name', ({ good, wrong }) => {
  it('gets a token once and reuses it for every request', async () => {
    const { client, bearer } = clientFor(good());
    const granted = emulator.oauth.requests.granted;
    expect(await firstJob(client)).toBeDefined();
    await client.listNodeTypes();
    await Promise.all([firstJob(client), firstJob(client), firstJob(client)]);
    expect(emulator.oauth.requests.granted - granted).toBe(1);
    expect(bearer.expiresAt()).toBe(nowMs + 3600_000);
  });

  it('a wrong secret is refused by the token endpoint and named by the access check', async () => {
    const { client, bearer } = clientFor(wrong());
    const rejected = emulator.oauth.requests.rejected;
    const error = await firstJob(client).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DatabricksApiError);
    expect((error as DatabricksApiError).httpStatus).toBe(401);
    expect((error as DatabricksApiError).errorCode).toBe('invalid_client');
    expect(emulator.oauth.requests.rejected - rejected).toBe(1);

    const checks = await checkWorkspaceAccess(client, { auth: bearer });
    const authLine = checks[0]!;
    expect(authLine.check).toBe('authenticate');
    expect(authLine.ok).toBe(false);
    expect(authLine.fix).toMatch(/secret/);
    expect(JSON.stringify(checks)).not.toContain('not-the-secret');
  });

  it('refreshes the token before it expires, and once more when the workspace refuses it', async () => {
    const { client, bearer } = clientFor(good());
    const start = emulator.oauth.requests.granted;
    await firstJob(client);
    const firstExpiry = bearer.expiresAt()!;

    nowMs += 50 * 60_000; // 10 minutes left: still inside the lifetime, before the refresh margin
    await firstJob(client);
    expect(emulator.oauth.requests.granted - start).toBe(1);

    nowMs += 6 * 60_000; // 4 minutes left: renewed before it expires
    await firstJob(client);
    expect(emulator.oauth.requests.granted - start).toBe(2);
    expect(bearer.expiresAt()!).toBeGreaterThan(firstExpiry);

    // revoked (a rotated secret, an early expiry): the 403 "Invalid access token." drops the token and one retry gets a new one
    expect(emulator.oauth.revokeAll()).toBeGreaterThan(0);
    expect(await firstJob(client)).toBeDefined();
    expect(emulator.oauth.requests.granted - start).toBe(3);
  });

  it('an issued token stops working at its expiry on the workspace side', async () => {
    const { client, bearer } = clientFor(good());
    await firstJob(client);
    const token = (await bearer.authorization()).slice('Bearer '.length);
    expect(emulator.oauth.accepts(token)).toBe(true);
    nowMs += 3600_000;
    expect(emulator.oauth.accepts(token)).toBe(false);
  });

  it('the access check names the method and when the token expires', async () => {
    const { client, bearer } = clientFor(good());
    const [authLine] = await checkWorkspaceAccess(client, { auth: bearer });
    expect(authLine?.ok).toBe(true);
    expect(authLine?.detail).toContain(bearer.method === 'oauth-m2m' ? 'OAuth M2M' : 'Entra ID');
    expect(authLine?.detail).toContain(new Date(bearer.expiresAt()!).toISOString());
  });
});

describe('workspace credentials', () => {
  it('a workspace with only a token signs in with it (PAT)', async () => {
    const auth = workspaceAuthOf({ token: emulator.token });
    expect(auth.method).toBe('pat');
    const { client, bearer } = clientFor(auth);
    expect(await firstJob(client)).toBeDefined();
    const [authLine] = await checkWorkspaceAccess(client, { auth: bearer });
    expect(authLine?.detail).toMatch(/personal access token; its expiry is set where it was created/);
  });

  it('incomplete or unknown auth types are refused with the missing field', () => {
    expect(() => workspaceAuthOf({ auth_type: 'oauth-m2m', client_id: 'x' })).toThrow(/client_secret/);
    expect(() =>
      workspaceAuthOf({ auth_type: 'azure-client-secret', azure_client_id: 'x', azure_client_secret: 'y' }),
    ).toThrow(/azure_tenant_id/);
    expect(() => workspaceAuthOf({ auth_type: 'kerberos' })).toThrow(/not one of pat, oauth-m2m/);
  });

  it('the token endpoints refuse a wrong grant or scope', async () => {
    const wrongScope = await fetch(`${emulator.url}/oidc/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: 'sql',
        client_id: databricksPrincipal.clientId,
        client_secret: databricksPrincipal.clientSecret,
      }).toString(),
    });
    expect(wrongScope.status).toBe(400);
    expect(((await wrongScope.json()) as { error: string }).error).toBe('invalid_scope');
    const wrongTenant = await fetch(`${emulator.url}/another-tenant/oauth2/v2.0/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: '2ff814a6-3304-4ab8-85cb-cd0e6f879c1d/.default',
        client_id: entraPrincipal.clientId,
        client_secret: entraPrincipal.clientSecret,
      }).toString(),
    });
    expect(wrongTenant.status).toBe(401);
  });

  it('the v1 Entra endpoint issues workspace and management tokens, and only the first opens the API', async () => {
    const tokenFor = async (resource: string) => {
      const answer = await fetch(`${emulator.url}/${entraPrincipal.tenantId}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          resource,
          client_id: entraPrincipal.clientId,
          client_secret: entraPrincipal.clientSecret,
        }).toString(),
      });
      return { status: answer.status, body: (await answer.json()) as Record<string, string> };
    };
    const workspace = await tokenFor('2ff814a6-3304-4ab8-85cb-cd0e6f879c1d');
    const management = await tokenFor('https://management.core.windows.net/');
    const unknown = await tokenFor('https://vault.azure.net');
    expect(workspace.status).toBe(200);
    expect(workspace.body.expires_in).toBe('3600');
    expect(management.status).toBe(200);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('invalid_resource');

    const list = (headers: Record<string, string>) =>
      fetch(`${emulator.url}/api/2.2/jobs/list?limit=1`, { headers }).then((answer) => answer.status);
    const bearer = (token: string | undefined) => `Bearer ${token}`;
    expect(await list({ authorization: bearer(workspace.body.access_token) })).toBe(200);
    expect(await list({ authorization: bearer(management.body.access_token) })).toBe(403);
    expect(
      await list({
        authorization: bearer(workspace.body.access_token),
        'x-databricks-azure-sp-management-token': management.body.access_token ?? '',
      }),
    ).toBe(200);
    expect(
      await list({
        authorization: bearer(workspace.body.access_token),
        'x-databricks-azure-sp-management-token': 'forged',
      }),
    ).toBe(403);
  });
});
