import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EMRClient, RunJobFlowCommand, type RunJobFlowCommandInput } from '@aws-sdk/client-emr';
import { type RunningEmulator, startEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import { S3Client } from '@setpoint/foundation/s3';
import { analyzeEventLog } from 'setpoint/eventlog/analyze-event-log';
import { EmrClient } from 'setpoint/platforms/emr/api/emr-client';
import type { EmrConnection } from 'setpoint/platforms/emr/api/emr-connection';
import { collectEmrStep, downloadEventLog } from 'setpoint/platforms/emr/collect/step-collector';
import { checkEmrAccess } from 'setpoint/platforms/emr/connection/emr-access-check';
import { EmrRunCoster } from 'setpoint/platforms/emr/cost/emr-run-coster';
import { discoverEmr } from 'setpoint/platforms/emr/discovery/discover';
import { shippedCatalog } from 'setpoint/pricing/catalog/shipped-catalog';
import { createPriceCatalog } from 'setpoint/pricing/price-catalog';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdOf } from '../support/run-costs.js';
import { type S3TestServer, startS3TestServer } from '../support/s3-test-server.js';

const start = Date.UTC(2026, 2, 2, 2, 0, 0);
const hour = 3_600_000;
const keys = { accessKeyId: 'AKIAEMULATOR0000', secretAccessKey: 'emulator-secret' };

function nightly(date: string): RunJobFlowCommandInput {
  return {
    Name: `nightly-orders-${date}`,
    ReleaseLabel: 'emr-7.2.0',
    LogUri: 's3://emr-logs/logs/',
    Tags: [{ Key: 'setpoint:project-id', Value: 'orders' }],
    Configurations: [
      { Classification: 'spark-defaults', Properties: { 'spark.eventLog.dir': 's3a://spark-events/apps' } },
    ],
    Instances: {
      KeepJobFlowAliveWhenNoSteps: false,
      InstanceGroups: [
        { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
        {
          InstanceRole: 'CORE',
          InstanceType: 'm5.2xlarge',
          InstanceCount: 2,
          EbsConfiguration: {
            EbsBlockDeviceConfigs: [{ VolumeSpecification: { VolumeType: 'gp3', SizeInGB: 64 } }],
          },
        },
        { InstanceRole: 'TASK', Market: 'SPOT', InstanceType: 'r5.xlarge', InstanceCount: 2 },
      ],
    },
    Steps: [
      {
        Name: 'orders-etl',
        HadoopJarStep: {
          Jar: 'command-runner.jar',
          Args: ['spark-submit', '--deploy-mode', 'cluster', 's3://jobs/join-heavy-etl.py'],
        },
      },
    ],
  };
}

function dailyOnHdfs(date: string): RunJobFlowCommandInput {
  const request = nightly(date);
  return { ...request, Name: `daily-agg ${date}`, Tags: [], Configurations: [] };
}

describe('the EMR adapter against the emulator', () => {
  let s3Server: S3TestServer;
  let emulator: RunningEmulator;
  let launcher: EMRClient;
  let s3: S3Client;
  let client: EmrClient;
  let connection: EmrConnection;

  beforeAll(async () => {
    s3Server = await startS3TestServer(['emr-logs', 'spark-events']);
    emulator = await startEmulator({
      port: 0,
      clockSpeed: 0,
      startTimeMs: start,
      preloadJobs: false,
      s3LogDelivery: { endpoint: s3Server.endpoint, credentials: s3Server.credentials },
      emr: { region: 'us-east-1' },
    });
    launcher = new EMRClient({ endpoint: emulator.url, region: 'us-east-1', credentials: keys });
    s3 = new S3Client({
      region: 'us-east-1',
      endpoint: s3Server.endpoint,
      credentials: s3Server.credentials,
    });
    connection = {
      region: 'us-east-1',
      credentials: { kind: 'access-keys', ...keys },
      endpoint: emulator.url,
    };
    client = new EmrClient(connection);
    // Three nightly runs (tagged, logs on S3), two daily runs (logs on HDFS), one long-running cluster.
    for (const date of ['2026-03-02', '2026-03-03', '2026-03-04']) {
      await launcher.send(new RunJobFlowCommand(nightly(date)));
      await launcher.send(new RunJobFlowCommand(dailyOnHdfs(date.replaceAll('-', ''))));
      emulator.context.clock.advance(8 * hour);
    }
    const shared = nightly('x');
    await launcher.send(
      new RunJobFlowCommand({
        ...shared,
        Name: 'shared-etl',
        Tags: [],
        Instances: { ...shared.Instances, KeepJobFlowAliveWhenNoSteps: true },
        Steps: [
          {
            Name: 'hourly-sessions 2026-03-05T01:00',
            HadoopJarStep: { Jar: 'command-runner.jar', Args: ['spark-submit', 's3://jobs/skewed-join.py'] },
          },
          {
            Name: 'hourly-sessions 2026-03-05T02:00',
            HadoopJarStep: { Jar: 'command-runner.jar', Args: ['spark-submit', 's3://jobs/skewed-join.py'] },
          },
          {
            Name: 'copy to redshift',
            HadoopJarStep: { Jar: 's3://jars/copy.jar', MainClass: 'com.example.Copy' },
          },
        ],
      }),
    );
    emulator.context.clock.advance(6 * hour);
    await emulator.emr.logsWritten();
  }, 120_000);

  afterAll(async () => {
    client?.close();
    launcher?.destroy();
    s3?.close();
    await emulator?.close();
    await s3Server?.close();
  });

  it('reads the instance types a release supports in the region, every page of them', async () => {
    const supported = await client.supportedInstanceTypes('emr-7.2.0');
    expect(supported.has('m5.xlarge')).toBe(true);
    expect(supported.has('Standard_DS3_v2')).toBe(false);
    // more than one page (EMR pages by 50): every type is read
    expect(supported.size).toBe(emulator.emr.supportedInstanceTypes().length);
    await expect(client.supportedInstanceTypes('seven')).rejects.toMatchObject({
      code: 'EMR_REQUEST_REJECTED',
      message: expect.stringContaining('release label seven is not valid'),
    });
  });

  it('discovers clusters and steps and groups recurring workloads by tag, cluster name or step name', async () => {
    const since = start - hour;
    const byTag = await discoverEmr(client, { since, rule: { kind: 'tag', key: 'setpoint:project-id' } });
    expect(byTag.clusters).toBe(7);
    expect(byTag.workloads.map((w) => [w.key, w.runs.length, w.recurring])).toEqual([['orders', 3, true]]);
    expect(byTag.ungrouped).toHaveLength(5);
    expect(byTag.ungrouped[0]?.reason).toMatch(/has no tag setpoint:project-id/);

    const byName = await discoverEmr(client, { since, rule: { kind: 'cluster-name' } });
    expect(byName.workloads.map((w) => [w.key, w.runs.length])).toEqual([
      ['daily-agg', 3],
      ['nightly-orders', 3],
      ['shared-etl', 2],
    ]);
    const bySteps = await discoverEmr(client, { since, rule: { kind: 'step-name' } });
    expect(
      bySteps.workloads.find((w) => w.key === 'hourly-sessions')?.runs.map((run) => run.stepState),
    ).toEqual(['COMPLETED', 'COMPLETED']);
    // The non-Spark step (a plain JAR) is not a workload.
    expect(bySteps.workloads.map((w) => w.key)).not.toContain('copy to redshift');
  });

  it('collects a transient step: cluster, shape, instance timeline, its event log; and prices it', async () => {
    const grouping = await discoverEmr(client, {
      since: start - hour,
      rule: { kind: 'tag', key: 'setpoint:project-id' },
    });
    const run = grouping.workloads[0]?.runs[0];
    if (!run) throw new Error('no run discovered');
    const collected = await collectEmrStep(client, s3, { region: 'us-east-1', ...run });
    const report = collected.report;
    expect(report.scope).toBe('cluster');
    expect(report.cluster.transient).toBe(true);
    expect(report.shape).toMatchObject({
      kind: 'instance-groups',
      groups: [
        { role: 'MASTER', instanceType: 'm5.xlarge', count: 1, market: 'ON_DEMAND' },
        { role: 'CORE', instanceType: 'm5.2xlarge', count: 2, volumes: [{ volumeType: 'gp3', sizeGb: 64 }] },
        { role: 'TASK', instanceType: 'r5.xlarge', count: 2, market: 'SPOT' },
      ],
    });
    expect(report.instances).toHaveLength(5);
    for (const instance of report.instances) {
      expect(instance.createdAt).toBe(report.cluster.createdAt);
      expect(instance.endedAt).toBe(report.cluster.endedAt);
    }
    expect(report.eventLog.applicationId).toMatch(/^application_\d+_0001$/);

    const directory = mkdtempSync(path.join(tmpdir(), 'setpoint-emr-collect-'));
    const [file] = await downloadEventLog(s3, collected.eventLogObjects, directory);
    const profile = await analyzeEventLog(file as string);
    expect(profile.application.id).toBe(report.eventLog.applicationId);
    expect(profile.application.startTime).toBeGreaterThanOrEqual(report.step.startedAt ?? Infinity);
    expect(profile.application.endTime).toBeLessThanOrEqual(report.step.endedAt ?? 0);

    const cost = await new EmrRunCoster(createPriceCatalog([shippedCatalog])).cost({
      profile,
      cluster: {} as never,
      clusterReport: report,
      workspace: null,
    });
    const hours = ((report.cluster.endedAt ?? 0) - (report.cluster.createdAt ?? 0)) / hour;
    // EC2 on demand for primary + core at list price, and the task pair at the default r5 spot discount (64%).
    const compute = hours * (0.192 + 2 * 0.384 + 2 * 0.252 * 0.36);
    expect(usdOf(cost, 'compute')).toBeCloseTo(compute, 9);
    expect(usdOf(cost, 'platform_fee', 'emr_fee')).toBeCloseTo(hours * (0.048 + 2 * 0.096 + 2 * 0.063), 9);
  });

  it('says why, and how to fix it, when a cluster kept its event logs on HDFS', async () => {
    const grouping = await discoverEmr(client, { since: start - hour, rule: { kind: 'cluster-name' } });
    const run = grouping.workloads.find((w) => w.key === 'daily-agg')?.runs[0];
    if (!run) throw new Error('no run discovered');
    await expect(collectEmrStep(client, s3, { region: 'us-east-1', ...run })).rejects.toMatchObject({
      code: 'EMR_EVENT_LOG_ON_HDFS',
      message: expect.stringMatching(
        /hdfs:\/\/\/var\/log\/spark\/apps .* lost when the cluster terminates.*spark\.eventLog\.dir/,
      ),
    });
  });

  it('charges a step on a long-running cluster its share of the instances', async () => {
    const grouping = await discoverEmr(client, { since: start - hour, rule: { kind: 'step-name' } });
    const run = grouping.workloads.find((w) => w.key === 'hourly-sessions')?.runs[1];
    if (!run) throw new Error('no run discovered');
    const { report } = await collectEmrStep(client, s3, { region: 'us-east-1', ...run });
    expect([report.scope, report.cluster.transient, report.cluster.state]).toEqual([
      'step',
      false,
      'WAITING',
    ]);
    expect(report.eventLog.applicationId).toMatch(/_0002$/);
  });

  it('checks each permission, and names the ones missing', async () => {
    const checks = await checkEmrAccess(client, s3, { now: start + 30 * hour });
    expect(checks.every((check) => check.status === 'held')).toBe(true);
    expect(checks.map((check) => `${check.neededFor} ${check.permission}`)).toEqual([
      'collect elasticmapreduce:ListClusters',
      'collect elasticmapreduce:DescribeCluster',
      'collect elasticmapreduce:ListSteps',
      'collect elasticmapreduce:ListInstanceGroups',
      'collect elasticmapreduce:ListInstanceFleets',
      'collect elasticmapreduce:ListInstances',
      'collect s3:ListBucket',
      'collect s3:GetObject',
      'collect s3:ListBucket',
      'collect s3:GetObject',
      'apply elasticmapreduce:ModifyInstanceGroups',
      'apply elasticmapreduce:ModifyInstanceFleet',
      'apply elasticmapreduce:PutManagedScalingPolicy',
    ]);
    expect(
      checks.filter((check) => check.permission.startsWith('s3:')).map((check) => check.resource),
    ).toEqual([
      's3://emr-logs/logs/',
      's3://emr-logs/logs/',
      's3://spark-events/apps',
      's3://spark-events/apps',
    ]);

    const restricted = await startEmulator({
      port: 0,
      clockSpeed: 0,
      preloadJobs: false,
      emr: { deniedActions: ['ListInstances', 'ModifyInstanceFleet'] },
    });
    const restrictedClient = new EmrClient({ ...connection, endpoint: restricted.url });
    try {
      const denied = await checkEmrAccess(restrictedClient, undefined);
      expect(
        denied.filter((check) => check.status !== 'held').map((check) => [check.permission, check.status]),
      ).toEqual([
        ['elasticmapreduce:ListInstances', 'missing'],
        ['elasticmapreduce:ModifyInstanceFleet', 'missing'],
      ]);
      expect(denied.find((check) => check.status === 'missing')?.detail).toMatch(
        /not authorized to perform: elasticmapreduce:ListInstances/,
      );
    } finally {
      restrictedClient.close();
      await restricted.close();
    }
  });
});
