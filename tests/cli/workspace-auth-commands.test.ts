import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AccessCheckResource, WorkspaceAuthResource } from '@setpoint/api-contract/databricks';
import { type RunningEmulator, startEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import { defaultServicePrincipals } from '@setpoint/databricks-emulator/server/oauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { type SpawnedServer, spawnSetpoint } from '../support/spawn-server.js';

const m2m = defaultServicePrincipals.find((principal) => principal.kind === 'databricks')!;
const entra = defaultServicePrincipals.find((principal) => principal.kind === 'entra')!;

describe('workspaces add and auth: OAuth M2M and Entra ID service principals through the real binary', () => {
  let emulator: RunningEmulator;
  let server: SpawnedServer;
  const root = mkdtempSync(path.join(tmpdir(), 'setpoint-auth-cli-'));
  const dataDir = path.join(root, 'data');
  const env = {
    SETPOINT_HOME: path.join(root, 'home'),
    SETPOINT_DATA_DIR: dataDir,
    SETPOINT_LOG_LEVEL: 'warn',
    // the emulator listens on loopback, which the SSRF guard refuses unless allowed
    SETPOINT_OUTBOUND_ALLOW_LIST: '127.0.0.1',
  };
  const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
    runCli(args, { env: { ...env, ...extraEnv } });
  let workspaceId = '';

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, clockSpeed: 0, rateLimitScale: 0 });
    server = await spawnSetpoint(
      ['serve', '--port', '0', '--data-dir', dataDir],
      /listening on (http:\/\/\S+)/,
      env,
    );
    const key = JSON.parse((await cli(['keys', 'create', '--name', 'cli', '--json'])).stdout) as {
      id: string;
      secret: string;
    };
    await cli(['configure', '--url', server.url, '--api-key-id', key.id, '--api-key-secret', key.secret]);
  });

  afterAll(async () => {
    await server?.stop();
    await emulator?.close();
  });

  it('adds a workspace with a Databricks service principal; the check names OAuth M2M and the expiry', async () => {
    const result = await cli(
      [
        'workspaces',
        'add',
        '--host',
        emulator.url,
        '--auth-type',
        'oauth-m2m',
        '--client-id',
        m2m.clientId,
        '--cloud',
        'aws',
        '--region',
        'us-west-2',
        '--plan',
        'premium',
        '--json',
      ],
      { DATABRICKS_CLIENT_SECRET: m2m.clientSecret },
    );
    expect(result.code, result.stderr).toBe(0);
    const body = JSON.parse(result.stdout) as { workspace: { id: string }; access: AccessCheckResource };
    workspaceId = body.workspace.id;
    const authLine = body.access.checks.find((line) => line.check === 'authenticate');
    expect(authLine?.ok).toBe(true);
    expect(authLine?.detail).toMatch(/OAuth M2M .* valid until \d{4}-\d\d-\d\dT/);
    expect(body.access.checks.find((line) => line.check === 'list jobs')?.ok).toBe(true);
    expect(result.stdout).not.toContain(m2m.clientSecret);
  });

  it('a secret missing from the environment is one readable line, exit non-zero', async () => {
    const result = await cli([
      'workspaces',
      'auth',
      workspaceId,
      '--auth-type',
      'oauth-m2m',
      '--client-id',
      'x',
    ]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/DATABRICKS_CLIENT_SECRET/);
  });

  it('rotating to a wrong secret fails the check at authenticate, with the fix', async () => {
    const result = await cli(
      ['workspaces', 'auth', workspaceId, '--auth-type', 'oauth-m2m', '--client-id', m2m.clientId],
      {
        DATABRICKS_CLIENT_SECRET: 'dose-revoked-secret',
      },
    );
    expect(result.code).toBe(7);
    expect(result.stdout).toMatch(
      /FAIL authenticate: the workspace refused the service principal’s OAuth secret: invalid_client/,
    );
    expect(result.stdout).toMatch(/fix: .*new secret/);
    expect(result.stdout).not.toContain('dose-revoked-secret');
  });

  it('rotates to an Entra ID service principal against a configurable authority', async () => {
    const result = await cli(
      [
        'workspaces',
        'auth',
        workspaceId,
        '--auth-type',
        'azure-client-secret',
        '--azure-tenant-id',
        entra.tenantId!,
        '--azure-client-id',
        entra.clientId,
        '--azure-authority-host',
        emulator.url,
        '--json',
      ],
      { ARM_CLIENT_SECRET: entra.clientSecret },
    );
    expect(result.code, result.stderr).toBe(0);
    const body = JSON.parse(result.stdout) as { auth: WorkspaceAuthResource; access: AccessCheckResource };
    expect(body.auth).toMatchObject({ auth_type: 'azure-client-secret', client_id: entra.clientId });
    expect(body.access.checks[0]).toMatchObject({ check: 'authenticate', ok: true });
    expect(body.access.checks[0]?.detail).toMatch(/Entra ID/);
  });
});
