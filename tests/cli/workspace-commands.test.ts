import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from '@cdktf/hcl2json';
import { createRepository, terraformOfJob } from '@setpoint/bench/iac/job-code';
import { type RunningEmulator, startEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import { createDatabricksClient } from 'setpoint/platforms/databricks/api/client';
import { catalogNodeSpecs } from 'setpoint/pricing/catalog-node-specs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../databricks/integration-harness.js';
import { runCli } from '../support/run-cli.js';
import { startS3TestServer } from '../support/s3-test-server.js';
import { type SpawnedServer, spawnSetpoint } from '../support/spawn-server.js';

describe('workspace, recommendation and export commands through the real binary', () => {
  let emulator: RunningEmulator;
  let server: SpawnedServer;
  const root = mkdtempSync(path.join(tmpdir(), 'setpoint-ws-cli-'));
  const dataDir = path.join(root, 'data');
  const env = {
    SETPOINT_HOME: path.join(root, 'home'),
    SETPOINT_DATA_DIR: dataDir,
    SETPOINT_LOG_LEVEL: 'warn',
    SETPOINT_LOG_COMPLETENESS_POLL_MS: '50',
    SETPOINT_JOB_RETRY_DELAY_SECONDS: '0.2',
    SETPOINT_JOB_MAX_ATTEMPTS: '12',
    // The emulator listens on loopback.
    SETPOINT_OUTBOUND_ALLOW_LIST: '127.0.0.1',
  };
  const cli = (...args: string[]) => runCli(args, { env });
  let workspaceId = '';
  const addEmulatedWorkspace = (extraArgs: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
    runCli(
      [
        'workspaces',
        'add',
        '--host',
        emulator.url,
        '--token',
        emulator.token,
        '--cloud',
        'aws',
        '--region',
        'us-west-2',
        '--plan',
        'premium',
        '--json',
        ...extraArgs,
      ],
      { env: { ...env, ...extraEnv } },
    );

  beforeAll(async () => {
    emulator = await startEmulator({
      nodeSpecs: catalogNodeSpecs,
      port: 0,
      seed: 5,
      clockSpeed: 3600,
      rateLimitScale: 0,
    });
    server = await spawnSetpoint(
      ['serve', '--port', '0', '--data-dir', dataDir],
      /listening on (http:\/\/\S+)/,
      env,
    );
    const key = JSON.parse((await cli('keys', 'create', '--name', 'cli', '--json')).stdout) as {
      id: string;
      secret: string;
    };
    await cli('configure', '--url', server.url, '--api-key-id', key.id, '--api-key-secret', key.secret);
  });

  afterAll(async () => {
    await server?.stop();
    await emulator?.close();
  });

  it('adds a workspace and prints the access check line by line', async () => {
    const result = await addEmulatedWorkspace([]);

    expect(result.code, result.stderr).toBe(0);
    const body = JSON.parse(result.stdout) as {
      workspace: { id: string };
      access: { ok: boolean; checks: { check: string }[] };
    };
    workspaceId = body.workspace.id;
    expect(body.access.ok).toBe(true);
    expect(body.access.checks.map((check) => check.check)).toContain('update jobs');
    expect(result.stdout).not.toContain(emulator.token);
  });

  it('rejects a bad plan before calling the server', async () => {
    const result = await cli(
      'workspaces',
      'add',
      '--host',
      emulator.url,
      '--token',
      't',
      '--cloud',
      'aws',
      '--region',
      'x',
      '--plan',
      'gold',
    );

    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('setpoint: --plan must be standard, premium or enterprise');
  });

  it('adds a workspace with an S3 log destination, its AWS keys taken from the environment', async () => {
    const s3 = await startS3TestServer(['cli-logs']);
    try {
      const add = (extraEnv: NodeJS.ProcessEnv) =>
        addEmulatedWorkspace(
          ['--log-destination', 's3://cli-logs/clusters', '--s3-endpoint', s3.endpoint],
          extraEnv,
        );

      const withoutKeys = await add({ AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '' });
      expect(withoutKeys.code).toBe(2);
      expect(withoutKeys.stderr.trim()).toBe(
        'setpoint: an s3:// log destination needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment',
      );

      const result = await add({
        AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
      });
      expect(result.code, result.stderr).toBe(0);
      const body = JSON.parse(result.stdout) as { access: { checks: { check: string; ok: boolean }[] } };
      expect(body.access.checks.find((check) => check.check === 'read S3')?.ok).toBe(true);
      expect(result.stdout).not.toContain(s3.credentials.secretAccessKey);
    } finally {
      await s3.close();
    }
  });

  it('discovers, imports, recommends, exports Terraform and detaches', async () => {
    const discovered = JSON.parse((await cli('workspaces', 'discover', workspaceId, '--json')).stdout) as {
      jobs: { job_id: string; name: string }[];
    };
    const job = discovered.jobs.find((candidate) => candidate.name === 'Daily aggregation');
    expect(job).toBeDefined();
    const imported = await cli(
      'workspaces',
      'import',
      workspaceId,
      job?.job_id ?? '',
      '--sla',
      '60',
      '--json',
    );
    const projectId =
      (JSON.parse(imported.stdout) as { jobs: { projects: { id: string }[] }[] }).jobs[0]?.projects[0]?.id ??
      '';
    expect(projectId).toMatch(/^prj_/);

    const databricks = createDatabricksClient({ host: emulator.url, token: emulator.token });
    await databricks.runNow(job?.job_id ?? '');
    await eventually(
      async () => {
        const latest = await cli('recommendations', 'latest', projectId, '--json');
        return latest.code === 0 && JSON.parse(latest.stdout).state === 'SUCCESS' ? true : undefined;
      },
      'a recommendation',
      120_000,
    );
    const exported = await cli('export', projectId);
    const hcl = (await parse('setpoint.tf', exported.stdout)) as {
      resource: {
        databricks_job: Record<
          string,
          [{ task: [{ task_key: string }]; lifecycle: [{ ignore_changes: string[] }] }]
        >;
      };
    };
    const resource = Object.values(hcl.resource.databricks_job)[0]?.[0];

    expect(resource?.task[0].task_key).toBe('main');
    expect(resource?.lifecycle[0].ignore_changes).toContain(`\${task[0].new_cluster[0].node_type_id}`);

    // the job's code, a Terraform file in a git repository the server reads: changes go there, not the API
    const settings = (await databricks.getJob(job?.job_id ?? '')).settings as Record<string, unknown>;
    const { remote } = createRepository(root, 'infra.git', {
      'jobs/daily.tf': terraformOfJob(settings).text,
    });
    const linked = await cli(
      'projects',
      'link-source',
      projectId,
      '--repo',
      remote,
      '--path',
      'jobs/daily.tf',
      '--forge',
      'none',
    );
    expect(linked.code, linked.stderr).toBe(0);
    expect(linked.stdout).toMatch(/^code +.*infra\.git \/\/ jobs\/daily\.tf \(terraform\)$/m);
    expect(linked.stdout).toMatch(/^changes go +to the code, as proposals$/m);
    const diff = await cli('iac', 'diff', projectId);
    expect(diff.code, diff.stderr).toBe(0);
    const latest = JSON.parse((await cli('recommendations', 'latest', projectId, '--json')).stdout) as {
      id: string;
      decision: { action: string } | null;
    };
    if (latest.decision?.action === 'keep')
      expect(diff.stderr).toBe(`jobs/daily.tf already holds recommendation ${latest.id}\n`);
    else expect(diff.stdout).toMatch(/^--- a\/jobs\/daily\.tf\n\+\+\+ b\/jobs\/daily\.tf\n@@ /m);
    const refused = await cli('recommendations', 'rollback', projectId);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(
      /^setpoint: project prj_\w+'s cluster is defined in .*infra\.git\/\/jobs\/daily\.tf: Setpoint proposes changes there .*\n$/,
    );
    const unlinked = await cli('projects', 'unlink-source', projectId);
    expect(unlinked.code, unlinked.stderr).toBe(0);

    const detached = await cli('workspaces', 'detach', workspaceId, job?.job_id ?? '');
    expect(detached.code).toBe(0);
    expect(detached.stdout).toMatch(/settings are restored/);
  }, 240_000);
});
