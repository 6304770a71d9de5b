import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { type SpawnedServer, spawnSetpoint } from '../support/spawn-server.js';

/** A port nothing listens on: a workspace host that is down. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Connecting a workspace as README says: `setpoint emulator`, `setpoint serve`, `setpoint workspaces add`.
 * The first server has no allow-list (the loopback host is refused and the message says how to allow it);
 * the second is started the way that message says.
 */
describe('connecting a workspace through the CLI', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'setpoint-ws-connect-'));
  const env = {
    SETPOINT_HOME: path.join(root, 'home'),
    SETPOINT_DATA_DIR: path.join(root, 'data'),
    SETPOINT_LOG_LEVEL: 'warn',
  };
  const cli = (...args: string[]) => runCli(args, { env });
  let emulator: SpawnedServer;
  let server: SpawnedServer | undefined;
  let emulatorUrl = '';
  let token = '';
  let downPort = 0;
  const add = (host: string, ...extra: string[]) =>
    cli(
      'workspaces',
      'add',
      '--host',
      host,
      '--cloud',
      'aws',
      '--region',
      'us-east-1',
      '--plan',
      'premium',
      ...extra,
    );
  const startServe = async (extraEnv: Record<string, string>) => {
    server = await spawnSetpoint(['serve', '--port', '0'], /listening on (http:\/\/\S+)/, {
      ...env,
      ...extraEnv,
    });
    const key = JSON.parse((await cli('keys', 'create', '--name', 'cli', '--json')).stdout) as {
      id: string;
      secret: string;
    };
    await cli('configure', '--url', server.url, '--api-key-id', key.id, '--api-key-secret', key.secret);
  };
  const workspaceIds = async () =>
    (JSON.parse((await cli('workspaces', 'list', '--json')).stdout) as { id: string }[]).map(
      (workspace) => workspace.id,
    );

  beforeAll(async () => {
    emulator = await spawnSetpoint(['emulator', '--port', '0'], /listening url=(http:\/\/\S+)/, env);
    emulatorUrl = emulator.url;
    token = /token=(\S+)/.exec(emulator.output())?.[1] ?? '';
    downPort = await closedPort();
  });

  afterAll(async () => {
    await server?.stop();
    await emulator?.stop();
  });

  it('a loopback host is refused with the setting that allows it, and works once the server has it', async () => {
    await startServe({});
    const refused = await add(emulatorUrl, '--token', token);
    const entry = new URL(emulatorUrl).host;
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain(`SETPOINT_OUTBOUND_ALLOW_LIST=${entry}`);
    expect(await workspaceIds()).toEqual([]);
    await server?.stop();

    await startServe({ SETPOINT_OUTBOUND_ALLOW_LIST: `${entry}, 127.0.0.1:${downPort}` });
    const added = await add(emulatorUrl, '--token', token);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^added workspace wsp_\S+ /);
    expect(added.stdout).toMatch(/ok {3}authenticate: personal access token.*; signed in as \S+@/);
  });

  it('a wrong token is refused at add: nothing is registered and the error names the token', async () => {
    const before = await workspaceIds();
    const result = await add(emulatorUrl, '--token', 'dapi-not-the-token');
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^setpoint: workspace not added: http:\/\/127\.0\.0\.1:\d+: authenticate failed: the workspace refused the token: PERMISSION_DENIED \(HTTP 403\): Invalid access token\.; fix: the token is wrong, expired or revoked.*nothing was registered \(--no-check registers it without signing in\)$/,
    );
    expect(result.stderr).not.toContain('dapi-not-the-token');
    expect(await workspaceIds()).toEqual(before);
  });

  it('--no-check registers it anyway, and its check then fails at authenticate with one reason', async () => {
    const result = await add(emulatorUrl, '--token', 'dapi-not-the-token', '--no-check');
    expect(result.code).toBe(7);
    expect(result.stdout).toMatch(/^added workspace /);
    expect(result.stdout.trim().split('\n').slice(1)).toEqual([
      expect.stringMatching(/^FAIL authenticate: the workspace refused the token/),
      expect.stringMatching(/^ {5}fix: the token is wrong/),
    ]);
  });

  it('a host that is down is named unreachable at add and by check, on the workspace, not the server', async () => {
    const down = `http://127.0.0.1:${downPort}`;
    const refused = await add(down, '--token', token);
    expect(refused.code).toBe(7);
    expect(refused.stderr.trim()).toMatch(
      new RegExp(
        `^setpoint: workspace not added: ${down}: reach workspace failed: unreachable: cannot reach ${down}: connect ECONNREFUSED 127\\.0\\.0\\.1:${downPort} \\(tried GET ${down}/api/2\\.0/preview/scim/v2/Me once, 10 s limit\\).*nothing was registered`,
      ),
    );
    expect(refused.stderr).not.toMatch(/cannot reach the Setpoint server/);

    const added = await add(down, '--token', token, '--no-check', '--json');
    expect(added.code).toBe(7);
    const id = (JSON.parse(added.stdout) as { workspace: { id: string } }).workspace.id;
    const check = await cli('workspaces', 'check', id);
    expect(check.code).toBe(7);
    expect(check.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(`^FAIL reach workspace: unreachable: cannot reach ${down}: connect ECONNREFUSED`),
      ),
      expect.stringMatching(/^ {5}fix: check the host, and that the Setpoint server can reach it/),
    ]);
  });

  it('remove says what happens to the projects, asks for --yes without a terminal, then unlinks them', async () => {
    const [id] = await workspaceIds();
    const project = JSON.parse(
      (await cli('projects', 'create', '--name', 'nightly', '--workspace', id!, '--json')).stdout,
    ) as { id: string };

    const unconfirmed = await cli('workspaces', 'remove', id!);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr.trim()).toMatch(
      new RegExp(
        `^setpoint: workspaces remove ${id}: Setpoint forgets .* and its credentials; its 1 project \\(nightly \\(${project.id}\\)\\) stay with their runs and recommendations, unlinked: their runs are no longer collected and nothing is applied to their jobs; its jobs in Databricks are not changed .*; pass --yes to remove it$`,
      ),
    );
    expect(await workspaceIds()).toContain(id);

    const removed = await cli('workspaces', 'remove', id!, '--yes', '--json');
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toEqual({ removed: id, unlinked_projects: [project.id] });
    expect(await workspaceIds()).not.toContain(id);
    const after = JSON.parse((await cli('projects', 'get', project.id, '--json')).stdout) as {
      workspace_id: string | null;
    };
    expect(after.workspace_id).toBeNull();
  });
});
