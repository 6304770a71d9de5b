import { EMRClient, RunJobFlowCommand } from '@aws-sdk/client-emr';
import { type RunningEmulator, startEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

const keys = { accessKeyId: 'AKIAEMULATOR0000', secretAccessKey: 'emulator-secret' };
// The default credential chain reads the environment; a foreign profile file must not interfere.
const env = {
  AWS_ACCESS_KEY_ID: keys.accessKeyId,
  AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
  AWS_REGION: 'us-east-1',
  AWS_CONFIG_FILE: '/nonexistent',
  AWS_SHARED_CREDENTIALS_FILE: '/nonexistent',
  AWS_EC2_METADATA_DISABLED: 'true',
};

describe('setpoint emr', () => {
  let emulator: RunningEmulator;
  let restricted: RunningEmulator;

  beforeAll(async () => {
    const now = Date.now();
    emulator = await startEmulator({
      port: 0,
      clockSpeed: 0,
      startTimeMs: now - 3 * 86_400_000,
      preloadJobs: false,
    });
    restricted = await startEmulator({
      port: 0,
      clockSpeed: 0,
      preloadJobs: false,
      emr: { deniedActions: ['ListInstances'] },
    });
    const launcher = new EMRClient({ endpoint: emulator.url, region: 'us-east-1', credentials: keys });
    for (const day of ['01', '02']) {
      await launcher.send(
        new RunJobFlowCommand({
          Name: `nightly-orders-2026-03-${day}`,
          Tags: [{ Key: 'setpoint:project-id', Value: 'orders' }],
          Instances: {
            InstanceGroups: [
              { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
              { InstanceRole: 'CORE', InstanceType: 'm5.2xlarge', InstanceCount: 2 },
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
      emulator.context.clock.advance(86_400_000);
    }
    launcher.destroy();
  });

  afterAll(async () => {
    await emulator?.close();
    await restricted?.close();
  });

  it('discovers recurring workloads grouped by tag', async () => {
    const result = await runCli(['emr', 'discover', '--endpoint', emulator.url, '--json'], { env });
    expect(result.stderr).not.toMatch(/setpoint:|error/i);
    expect(result.code).toBe(0);
    const found = JSON.parse(result.stdout) as {
      clusters: number;
      workloads: { key: string; runs: unknown[]; recurring: boolean }[];
    };
    expect(found.clusters).toBe(2);
    expect(found.workloads.map((w) => [w.key, w.runs.length, w.recurring])).toEqual([['orders', 2, true]]);
    const text = await runCli(['emr', 'discover', '--endpoint', emulator.url, '--group-by', 'cluster-name'], {
      env,
    });
    expect(text.stdout).toContain('recurring nightly-orders: 2 runs on 2 clusters');
  });

  it('checks access line by line, and exits 5 naming what is missing', async () => {
    const ok = await runCli(['emr', 'check', '--endpoint', emulator.url], { env });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^held\s+elasticmapreduce:ListInstances \(collect\)/m);
    const denied = await runCli(['emr', 'check', '--endpoint', restricted.url], { env });
    expect(denied.code).toBe(5);
    expect(denied.stdout).toMatch(/^missing elasticmapreduce:ListInstances \(collect\): .*not authorized/m);
    expect(denied.stderr).toContain(
      'Setpoint cannot collect EMR runs without elasticmapreduce:ListInstances',
    );
  });

  it('rejects bad input with one readable line', async () => {
    const rule = await runCli(['emr', 'discover', '--endpoint', emulator.url, '--group-by', 'by-magic'], {
      env,
    });
    expect(rule.code).toBe(2);
    expect(rule.stderr).toContain(
      '--group-by expects tag[:KEY], cluster-name, name-pattern:REGEX or step-name, got "by-magic"',
    );
    const role = await runCli(['emr', 'check', '--role-arn', 'not-an-arn'], { env });
    expect(role.code).toBe(2);
    expect(role.stderr).toContain('a role ARN looks like arn:aws:iam::123456789012:role/name');
  });
});
