import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EMRClient, ListClustersCommand, ListStepsCommand, RunJobFlowCommand } from '@aws-sdk/client-emr';
import type { RunResource } from '@setpoint/api-contract';
import type { EmrAccountList, EmrAccountResource, EmrImportResource } from '@setpoint/api-contract/emr';
import { type RunningEmulator, startEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventually } from '../databricks/integration-harness.js';
import { runCli } from '../support/run-cli.js';
import { type S3TestServer, startS3TestServer } from '../support/s3-test-server.js';
import { type SpawnedServer, spawnSetpoint } from '../support/spawn-server.js';

// The server learns the shipped fleet prior before its first recommendation (slow on a busy machine).
vi.setConfig({ testTimeout: 400_000 });

const keys = { accessKeyId: 'AKIAEMULATOR0000', secretAccessKey: 'emulator-secret-kept-out-of-output' };
const hour = 3_600_000;

describe('setpoint emr add|list|import|remove, runs submit --emr-cluster-id, export --format emr', () => {
  let s3Server: S3TestServer;
  let emulator: RunningEmulator;
  let server: SpawnedServer;
  let launcher: EMRClient;
  let accountId = '';
  const root = mkdtempSync(path.join(tmpdir(), 'setpoint-emr-cli-'));
  const dataDir = path.join(root, 'data');
  const env = {
    SETPOINT_HOME: path.join(root, 'home'),
    SETPOINT_DATA_DIR: dataDir,
    SETPOINT_LOG_LEVEL: 'warn',
    SETPOINT_JOB_RETRY_DELAY_SECONDS: '0.2',
    SETPOINT_JOB_MAX_ATTEMPTS: '8',
    SETPOINT_OUTBOUND_ALLOW_LIST: '127.0.0.1',
  };
  const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
    runCli(args, { env: { ...env, ...extraEnv } });

  let apiKey = { id: '', secret: '' };
  /** A bearer token for reading the server's routes directly, beside the CLI. */
  const serverToken = async () => {
    const response = await fetch(`${server.url}/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key_id: apiKey.id, api_key_secret: apiKey.secret }),
    });
    return ((await response.json()) as { access_token: string }).access_token;
  };

  beforeAll(async () => {
    s3Server = await startS3TestServer(['emr-logs', 'spark-events']);
    emulator = await startEmulator({
      port: 0,
      clockSpeed: 0,
      seed: 3,
      preloadJobs: false,
      s3LogDelivery: { endpoint: s3Server.endpoint, credentials: s3Server.credentials },
    });
    launcher = new EMRClient({ endpoint: emulator.url, region: 'us-east-1', credentials: keys });
    for (const day of ['01', '02']) {
      await launcher.send(
        new RunJobFlowCommand({
          Name: `nightly-orders-2026-03-${day}`,
          LogUri: 's3://emr-logs/logs/',
          Tags: [{ Key: 'setpoint:project-id', Value: 'orders' }],
          Configurations: [
            {
              Classification: 'spark-defaults',
              Properties: { 'spark.eventLog.dir': 's3://spark-events/apps' },
            },
          ],
          Instances: {
            InstanceGroups: [
              { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
              { InstanceRole: 'CORE', InstanceType: 'm5.2xlarge', InstanceCount: 4 },
            ],
          },
          Steps: [
            {
              Name: 'etl',
              HadoopJarStep: {
                Jar: 'command-runner.jar',
                Args: ['spark-submit', 's3://jobs/daily-aggregation.py'],
              },
            },
          ],
        }),
      );
      emulator.context.clock.advance(8 * hour);
    }
    emulator.emr.catchUp();
    await emulator.emr.logsWritten();
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
    apiKey = key;
  }, 120_000);

  afterAll(async () => {
    launcher?.destroy();
    await server?.stop();
    await emulator?.close();
    await s3Server?.close();
  });

  it('adds an account from the environment’s keys and never prints the secret', async () => {
    const added = await cli(
      [
        'emr',
        'add',
        '--name',
        'analytics',
        '--region',
        'us-east-1',
        '--endpoint',
        emulator.url,
        '--s3-endpoint',
        s3Server.endpoint,
        '--access-keys-from-env',
        '--log-store-keys-from-env',
        '--json',
      ],
      {
        AWS_ACCESS_KEY_ID: keys.accessKeyId,
        AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
        SETPOINT_LOG_STORE_ACCESS_KEY_ID: s3Server.credentials.accessKeyId,
        SETPOINT_LOG_STORE_SECRET_ACCESS_KEY: s3Server.credentials.secretAccessKey,
      },
    );
    expect(added.code, added.stderr).toBe(0);
    const account = JSON.parse(added.stdout) as EmrAccountResource;
    accountId = account.id;
    expect(account).toMatchObject({
      credential_kind: 'access-keys',
      access_key_id_hint: '…0000',
      has_log_store_keys: true,
    });

    const listed = await cli(['emr', 'list', '--json']);
    expect((JSON.parse(listed.stdout) as EmrAccountList).items.map((item) => item.id)).toEqual([accountId]);
    const table = await cli(['emr', 'list']);
    expect(table.stdout).toMatch(
      new RegExp(`${accountId}\\s+analytics\\s+us-east-1\\s+access keys …0000\\s+tag:setpoint:project-id`),
    );
    expect(added.stdout + listed.stdout + table.stdout).not.toContain(keys.secretAccessKey);
  });

  it('refuses bad input with one readable line and a non-zero exit', async () => {
    const noKeys = await cli(
      ['emr', 'add', '--name', 'x', '--region', 'us-east-1', '--access-keys-from-env'],
      {
        AWS_ACCESS_KEY_ID: '',
        AWS_SECRET_ACCESS_KEY: '',
      },
    );
    expect(noKeys.code).toBe(2);
    expect(noKeys.stderr.trim().split('\n')).toHaveLength(1);
    expect(noKeys.stderr).toContain(
      '--access-keys-from-env needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    );

    const badRule = await cli([
      'emr',
      'add',
      '--name',
      'x',
      '--region',
      'us-east-1',
      '--group-by',
      'by-magic',
    ]);
    expect(badRule.code).toBe(2);
    expect(badRule.stderr).toContain(
      '--group-by expects tag[:KEY], cluster-name, name-pattern:REGEX or step-name',
    );

    const lonely = await cli(['runs', 'submit', 'prj_x', '--emr-cluster-id', 'j-ABC']);
    expect(lonely.code).toBe(2);
    expect(lonely.stderr).toContain('--emr-cluster-id and --step-id go together');

    const format = await cli(['export', 'prj_x', '--format', 'yaml']);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('--format must be terraform, json or emr');

    const unknown = await cli(['emr', 'import', 'wsp_nope', 'orders']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('connects through /api/v1/connections: each command group reads and removes its own platform only', async () => {
    // a Databricks workspace beside the EMR account, stored without signing in (its host is not reachable)
    const workspace = await cli([
      'workspaces',
      'add',
      '--host',
      'https://dbc-beside.cloud.databricks.com',
      '--token',
      'dapi-beside',
      '--cloud',
      'aws',
      '--region',
      'us-east-1',
      '--plan',
      'premium',
      '--no-check',
      '--json',
    ]);
    const workspaceId = (JSON.parse(workspace.stdout) as { workspace: { id: string } }).workspace.id;
    const connections = await fetch(`${server.url}/api/v1/connections`, {
      headers: { authorization: `Bearer ${await serverToken()}` },
    }).then((response) => response.json() as Promise<{ items: Array<{ id: string; platform: string }> }>);
    expect(connections.items.map((item) => [item.id, item.platform]).sort()).toEqual(
      [
        [accountId, 'emr'],
        [workspaceId, 'databricks'],
      ].sort(),
    );

    const emrList = JSON.parse((await cli(['emr', 'list', '--json'])).stdout) as EmrAccountList;
    expect(emrList.items.map((item) => item.id)).toEqual([accountId]);
    const workspaces = JSON.parse((await cli(['workspaces', 'list', '--json'])).stdout) as Array<{
      id: string;
    }>;
    expect(workspaces.map((item) => item.id)).toEqual([workspaceId]);

    // `emr remove` refuses a workspace of another platform, which stays
    const refused = await cli(['emr', 'remove', workspaceId]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`workspace ${workspaceId} is not an EMR account`);
    const removed = await cli(['workspaces', 'remove', workspaceId, '--yes']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse((await cli(['workspaces', 'list', '--json'])).stdout)).toEqual([]);
  });

  it('imports a workload, collects a step on request, and exports the recommendation for the next launch', async () => {
    const imported = await cli([
      'emr',
      'import',
      accountId,
      'orders',
      '--since-days',
      '30',
      '--no-history',
      '--json',
    ]);
    expect(imported.code, imported.stderr).toBe(0);
    const project = (JSON.parse(imported.stdout) as EmrImportResource).projects[0];
    expect(project).toMatchObject({ workload: 'orders', created: true, queued_runs: 0 });
    const projectId = project?.id as string;

    const missing = await cli(['emr', 'import', accountId, 'no-such-workload']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such workload in the last 14 days: no-such-workload');

    const runs: { clusterId: string; stepId: string }[] = [];
    const listed = await launcher.send(new ListClustersCommand({}));
    for (const cluster of listed.Clusters ?? []) {
      const steps = await launcher.send(new ListStepsCommand({ ClusterId: cluster.Id }));
      runs.push({ clusterId: cluster.Id as string, stepId: steps.Steps?.[0]?.Id as string });
    }
    expect(runs).toHaveLength(2);
    for (const run of runs) {
      const submitted = await cli([
        'runs',
        'submit',
        projectId,
        '--emr-cluster-id',
        run.clusterId,
        '--step-id',
        run.stepId,
      ]);
      expect(submitted.code, submitted.stderr).toBe(0);
      expect(submitted.stdout).toContain(
        `queued collection of EMR step ${run.stepId} of cluster ${run.clusterId} from account ${accountId}`,
      );
    }
    const done = await eventually(
      async () => {
        const page = JSON.parse((await cli(['runs', 'list', projectId, '--json'])).stdout) as {
          items: RunResource[];
        };
        return page.items.filter((run) => run.pipeline_state === 'DONE').length === 2
          ? page.items
          : undefined;
      },
      'both EMR steps to be processed',
      300_000,
    );
    expect(done.map((run) => run.external_run_id).sort()).toEqual(
      runs.map((run) => `${run.clusterId}:${run.stepId}`).sort(),
    );

    const exported = await eventually(
      async () => {
        const result = await cli(['export', projectId, '--format', 'emr']);
        return result.code === 0 ? result : undefined;
      },
      'a recommendation to export',
      300_000,
    );
    const flow = JSON.parse(exported.stdout) as {
      project: string;
      run_job_flow: { Instances: { InstanceGroups: { InstanceRole: string }[] } };
    };
    expect(flow.project).toBe(projectId);
    expect(flow.run_job_flow.Instances.InstanceGroups.map((group) => group.InstanceRole)).toEqual(
      expect.arrayContaining(['MASTER', 'CORE']),
    );
    const terraform = await cli(['export', projectId]);
    expect(terraform.code, terraform.stderr).toBe(0);
    expect(terraform.stdout).toMatch(/resource "aws_emr_cluster" "orders"/);

    const removed = await cli(['emr', 'remove', accountId]);
    expect(removed.stdout).toContain(`removed EMR account ${accountId}`);
    expect(JSON.parse((await cli(['emr', 'list', '--json'])).stdout)).toEqual({ items: [] });
  });
});
