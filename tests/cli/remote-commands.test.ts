import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { type SpawnedServer, spawnSetpoint } from '../support/spawn-server.js';

describe('CLI commands against a running server', () => {
  let server: SpawnedServer;
  const root = mkdtempSync(path.join(tmpdir(), 'setpoint-cli-'));
  const dataDir = path.join(root, 'data');
  const env = {
    SETPOINT_HOME: path.join(root, 'home'),
    SETPOINT_DATA_DIR: dataDir,
    SETPOINT_LOG_LEVEL: 'warn',
  };
  const cli = (...args: string[]) => runCli(args, { env });

  beforeAll(async () => {
    server = await spawnSetpoint(
      ['serve', '--port', '0', '--data-dir', dataDir],
      /listening on (http:\/\/\S+)/,
      env,
    );
    const key = await cli('keys', 'create', '--name', 'cli-test', '--json');
    const { id, secret } = JSON.parse(key.stdout) as { id: string; secret: string };
    const configured = await cli(
      'configure',
      '--url',
      server.url,
      '--api-key-id',
      id,
      '--api-key-secret',
      secret,
    );
    expect(configured.code, configured.stderr).toBe(0);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('stores the profile readable by its owner only', () => {
    expect(statSync(path.join(env.SETPOINT_HOME, 'config')).mode & 0o777).toBe(0o600);
  });

  it('creates, lists, updates and deletes a project', async () => {
    const created = await cli(
      'projects',
      'create',
      '--name',
      'orders-etl',
      '--app-id',
      'orders',
      '--sla',
      '45',
      '--json',
    );
    const project = JSON.parse(created.stdout) as { id: string; settings: { slaMinutes: number } };
    expect(project.settings.slaMinutes).toBe(45);

    const listed = await cli('projects', 'list');
    expect(listed.stdout).toMatch(new RegExp(`${project.id}\\s+orders-etl\\s+PENDING_SETUP\\s+45m`));

    const updated = await cli(
      'projects',
      'update',
      project.id,
      '--preference',
      'economy',
      '--auto-apply',
      '--json',
    );
    expect(JSON.parse(updated.stdout)).toMatchObject({
      settings: { preference: 'economy', autoApply: true },
    });

    const deleted = await cli('projects', 'delete', project.id, '--yes');
    expect(deleted.code).toBe(0);
    const gone = await cli('projects', 'get', project.id);
    expect(gone.code).toBe(3);
    expect(gone.stderr.trim()).toBe(`setpoint: project ${project.id} does not exist`);
  });

  it('resets a project through the API and says which phase it is in', async () => {
    const created = JSON.parse((await cli('projects', 'create', '--name', 'to-reset', '--json')).stdout) as {
      id: string;
    };

    const human = await cli('projects', 'reset', created.id);
    const json = await cli('projects', 'reset', created.id, '--json');
    const missing = await cli('projects', 'reset', 'prj_missing');

    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toBe(`project ${created.id} reset; phase PENDING_SETUP\n`);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: created.id, learning_reset_at: expect.any(Number) });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toBe('setpoint: project prj_missing does not exist\n');
  });

  it('prints a bearer token that the API accepts', async () => {
    const token = (await cli('token')).stdout.trim();

    const response = await fetch(`${server.url}/api/v1/projects`, {
      headers: { authorization: `Bearer ${token}` },
    });

    expect(response.status).toBe(200);
  });

  it('rejects a bad setting value with the server’s message and exit code 2', async () => {
    const result = await cli('projects', 'create', '--name', 'x', '--min-workers', '9', '--max-workers', '2');

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^setpoint: .*minWorkers/);
  });

  it('sets the apply mode, names the allowed ones when given another, and lists what awaits approval', async () => {
    const bad = await cli('projects', 'create', '--name', 'modes', '--apply-mode', 'sometimes');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^setpoint: [^\n]*--apply-mode[^\n]*manual, approve-learning, auto[^\n]*\n$/);
    const twice = await cli(
      'projects',
      'create',
      '--name',
      'modes',
      '--apply-mode',
      'auto',
      '--no-auto-apply',
    );
    expect(twice.code).toBe(2);
    expect(twice.stderr.trim()).toBe(
      'setpoint: give either --apply-mode or --auto-apply/--no-auto-apply, not both (--apply-mode manual | approve-learning | auto)',
    );

    const created = JSON.parse(
      (await cli('projects', 'create', '--name', 'modes', '--apply-mode', 'approve-learning', '--json'))
        .stdout,
    ) as { id: string; settings: { applyMode: string; autoApply: boolean } };
    expect(created.settings).toMatchObject({ applyMode: 'approve-learning', autoApply: true });
    const shown = await cli('projects', 'get', created.id);
    expect(shown.stdout).toMatch(/apply mode\s+approve-learning/);
    const off = await cli('projects', 'update', created.id, '--no-auto-apply', '--json');
    expect(JSON.parse(off.stdout).settings).toMatchObject({ applyMode: 'manual', autoApply: false });

    const awaiting = await cli('recommendations', 'awaiting', '--project', created.id);
    expect(awaiting.code, awaiting.stderr).toBe(0);
    expect(awaiting.stdout).toBe('nothing is waiting for approval\n');
    const approve = await cli('recommendations', 'approve', created.id, 'rec_none');
    expect(approve.code).toBe(3);
    expect(approve.stderr.trim()).toBe(
      `setpoint: recommendation rec_none does not exist in project ${created.id}`,
    );
  });

  it('refuses a directory as an event log before uploading', async () => {
    const created = JSON.parse((await cli('projects', 'create', '--name', 'y', '--json')).stdout) as {
      id: string;
    };

    const result = await cli('runs', 'submit', created.id, root);

    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(/is a directory: zip it or pass its files$/);
  });

  it('says when there is no API key configured', async () => {
    const result = await runCli(['projects', 'list'], { env: { SETPOINT_HOME: path.join(root, 'empty') } });

    expect(result.code).toBe(8);
    expect(result.stderr.trim()).toBe(
      'setpoint: no API key configured: run `setpoint configure` or set SETPOINT_API_KEY_ID and SETPOINT_API_KEY_SECRET',
    );
  });

  it('says when the server cannot be reached', async () => {
    const result = await runCli(['projects', 'list'], {
      env: {
        ...env,
        SETPOINT_URL: 'http://127.0.0.1:9',
        SETPOINT_API_KEY_ID: 'k',
        SETPOINT_API_KEY_SECRET: 's',
      },
    });

    expect(result.code).toBe(7);
    expect(result.stderr).toMatch(/^setpoint: cannot reach the Setpoint server at http:\/\/127\.0\.0\.1:9/);
  });

  it('asks for flags when configure is not run on a terminal', async () => {
    const result = await runCli(['configure'], { env: { SETPOINT_HOME: path.join(root, 'other') } });

    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      'setpoint: not a terminal: pass --url, --api-key-id and --api-key-secret',
    );
  });
});
