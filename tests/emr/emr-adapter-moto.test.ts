import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  EMRClient,
  ListInstanceGroupsCommand,
  ModifyInstanceGroupsCommand,
  RunJobFlowCommand,
  TerminateJobFlowsCommand,
} from '@aws-sdk/client-emr';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { S3Client } from '@setpoint/foundation/s3';
import { createCostModel } from 'setpoint/cost/cost-model';
import { analyzeEventLog } from 'setpoint/eventlog/analyze-event-log';
import { EmrClient } from 'setpoint/platforms/emr/api/emr-client';
import { credentialProvider, type EmrConnection } from 'setpoint/platforms/emr/api/emr-connection';
import { collectEmrStep, downloadEventLog } from 'setpoint/platforms/emr/collect/step-collector';
import { checkEmrAccess } from 'setpoint/platforms/emr/connection/emr-access-check';
import { emrRunCost } from 'setpoint/platforms/emr/cost/emr-run-coster';
import { discoverEmr } from 'setpoint/platforms/emr/discovery/discover';
import { cachedSupportedInstanceTypes } from 'setpoint/platforms/emr/recommender/supported-instance-types';
import { shippedCatalog } from 'setpoint/pricing/catalog/shipped-catalog';
import { createPriceCatalog } from 'setpoint/pricing/price-catalog';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type MotoServer, startMotoServer } from '../support/moto-server.js';
import { usdOf } from '../support/run-costs.js';
import { describeFull } from '../support/tiers.js';

const keys = { accessKeyId: 'AKIAMOTO00000000', secretAccessKey: 'moto-secret' };
const fixture = path.resolve(import.meta.dirname, '../fixtures/eventlog/generated/local-1430917381534.lz4');

// moto (PyPI `moto[server]`) implements RunJobFlow, DescribeCluster, ListClusters, ListSteps, AddJobFlowSteps,
// ListInstanceGroups, ListInstances, ModifyInstanceGroups and TerminateJobFlows, plus S3 and STS; it does not
// implement ListInstanceFleets, ModifyInstanceFleet or the managed-scaling calls, so those are proven on the emulator only.
describeFull(
  'the EMR adapter against moto in server mode',
  'moto[server] from PyPI (SETPOINT_PYTHON)',
  () => {
    let moto: MotoServer;
    let launcher: EMRClient;
    let client: EmrClient;
    let s3: S3Client;
    let connection: EmrConnection;
    const clusterIds: string[] = [];

    beforeAll(async () => {
      moto = await startMotoServer();
      launcher = new EMRClient({ endpoint: moto.endpoint, region: 'us-east-1', credentials: keys });
      connection = {
        region: 'us-east-1',
        credentials: { kind: 'access-keys', ...keys },
        endpoint: moto.endpoint,
      };
      client = new EmrClient(connection);
      s3 = new S3Client({ region: 'us-east-1', endpoint: moto.endpoint, credentials: keys });
      for (const bucket of ['emr-logs', 'spark-events'])
        await s3.sdk.send(new CreateBucketCommand({ Bucket: bucket }));
      for (const day of ['02', '03', '04']) {
        const { JobFlowId } = await launcher.send(
          new RunJobFlowCommand({
            Name: `nightly-orders-2026-03-${day}`,
            ReleaseLabel: 'emr-7.2.0',
            LogUri: 's3://emr-logs/logs/',
            Tags: [{ Key: 'setpoint:project-id', Value: 'orders' }],
            Configurations: [
              {
                Classification: 'spark-defaults',
                Properties: { 'spark.eventLog.dir': 's3://spark-events/apps/' },
              },
            ],
            Instances: {
              KeepJobFlowAliveWhenNoSteps: false,
              InstanceGroups: [
                { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
                {
                  InstanceRole: 'CORE',
                  InstanceType: 'm5.2xlarge',
                  InstanceCount: 2,
                  // moto keeps block devices only when VolumesPerInstance is given (AWS defaults it to 1).
                  EbsConfiguration: {
                    EbsBlockDeviceConfigs: [
                      { VolumeSpecification: { VolumeType: 'gp3', SizeInGB: 64 }, VolumesPerInstance: 1 },
                    ],
                  },
                },
                {
                  InstanceRole: 'TASK',
                  Market: 'SPOT',
                  BidPrice: '0.10',
                  InstanceType: 'r5.xlarge',
                  InstanceCount: 2,
                },
              ],
            },
            Steps: [
              {
                Name: 'orders-etl',
                HadoopJarStep: { Jar: 'command-runner.jar', Args: ['spark-submit', 's3://jobs/orders.py'] },
              },
            ],
            JobFlowRole: 'EMR_EC2_DefaultRole',
            ServiceRole: 'EMR_DefaultRole',
          }),
        );
        clusterIds.push(JobFlowId as string);
      }
    }, 60_000);

    afterAll(async () => {
      client?.close();
      launcher?.destroy();
      s3?.close();
      await moto?.close();
    });

    it('discovers moto’s clusters and steps and groups them by tag and by cluster name', async () => {
      const byTag = await discoverEmr(client, {
        since: Date.now() - 3_600_000,
        rule: { kind: 'tag', key: 'setpoint:project-id' },
      });
      expect(byTag.clusters).toBe(3);
      expect(byTag.workloads.map((w) => [w.key, w.runs.length, w.recurring])).toEqual([['orders', 3, true]]);
      expect(new Set(byTag.workloads[0]?.clusterIds)).toEqual(new Set(clusterIds));
      const byName = await discoverEmr(client, {
        since: Date.now() - 3_600_000,
        rule: { kind: 'cluster-name' },
      });
      expect(byName.workloads.map((w) => w.key)).toEqual(['nightly-orders']);
    });

    it('resizes a task group with ModifyInstanceGroups as moto records it', async () => {
      const id = clusterIds[2] as string;
      const task = (await client.listInstanceGroups(id)).find((group) => group.InstanceGroupType === 'TASK');
      await client.modifyInstanceGroupCount(id, task?.Id as string, 4);
      const after = (
        await launcher.send(new ListInstanceGroupsCommand({ ClusterId: id }))
      ).InstanceGroups?.find((g) => g.Id === task?.Id);
      expect(after?.RequestedInstanceCount).toBe(4);
      await launcher.send(
        new ModifyInstanceGroupsCommand({
          ClusterId: id,
          InstanceGroups: [{ InstanceGroupId: task?.Id, InstanceCount: 2 }],
        }),
      );
    });

    it('collects a terminated cluster’s step: shape and instances from moto, the event log from moto’s S3', async () => {
      const id = clusterIds[0] as string;
      await launcher.send(new TerminateJobFlowsCommand({ JobFlowIds: [id] }));
      let stepId = '';
      for await (const step of client.listSteps(id)) stepId = step.Id;
      const applicationId = 'application_1772416800000_0001';
      await s3.putObject(
        'emr-logs',
        `logs/${id}/steps/${stepId}/stderr.gz`,
        gzipSync(`26/03/02 02:10:00 INFO YarnClientImpl: Submitted application ${applicationId}\n`),
      );
      await s3.putObject('spark-events', `apps/${applicationId}.lz4`, readFileSync(fixture));

      const collected = await collectEmrStep(client, s3, { region: 'us-east-1', clusterId: id, stepId });
      const report = collected.report;
      expect(report.cluster.state).toBe('TERMINATED');
      expect(report.cluster.transient).toBe(true);
      expect(report.shape.kind).toBe('instance-groups');
      expect(
        report.instances
          .map((instance) => `${instance.role} ${instance.instanceType} ${instance.market}`)
          .sort(),
      ).toEqual([
        'CORE m5.2xlarge ON_DEMAND',
        'CORE m5.2xlarge ON_DEMAND',
        'MASTER m5.xlarge ON_DEMAND',
        'TASK r5.xlarge SPOT',
        'TASK r5.xlarge SPOT',
      ]);
      expect(report.instances.find((instance) => instance.role === 'CORE')?.volumes).toEqual([
        { volumeType: 'gp3', sizeGb: 64 },
      ]);
      expect(collected.eventLogObjects).toEqual([`s3://spark-events/apps/${applicationId}.lz4`]);
      const directory = mkdtempSync(path.join(tmpdir(), 'setpoint-emr-moto-'));
      const [file] = await downloadEventLog(s3, collected.eventLogObjects, directory);
      const profile = await analyzeEventLog(file as string);
      expect(profile.application.id).toBe('local-1430917381534');

      // moto reports the cluster's end; every instance is billed from its creation to that end.
      const end = report.cluster.endedAt as number;
      const start = report.cluster.createdAt as number;
      expect(end).toBeGreaterThanOrEqual(start);
      const cost = emrRunCost(createCostModel(createPriceCatalog([shippedCatalog])), {
        ...report,
        cluster: { ...report.cluster, endedAt: start + 3_600_000 },
      });
      // moto may stamp an instance a millisecond after its cluster: each is billed from its own creation
      const emrFeePerHour: Record<string, number> = {
        'm5.xlarge': 0.048,
        'm5.2xlarge': 0.096,
        'r5.xlarge': 0.063,
      };
      const expectedFee = report.instances.reduce(
        (sum, instance) =>
          sum +
          ((emrFeePerHour[instance.instanceType] as number) * (start + 3_600_000 - instance.createdAt)) /
            3_600_000,
        0,
      );
      expect(report.instances.every((instance) => start + 3_600_000 - instance.createdAt > 3_590_000)).toBe(
        true,
      );
      expect(usdOf(cost, 'platform_fee', 'emr_fee')).toBeCloseTo(expectedFee, 9);
      expect(expectedFee).toBeCloseTo(0.048 + 2 * 0.096 + 2 * 0.063, 4);
    });

    it('checks permissions: held where moto answers, unknown (never held) where moto does not implement the call', async () => {
      const checks = await checkEmrAccess(client, s3);
      const status = Object.fromEntries(
        checks
          .filter((c) => c.permission.startsWith('elasticmapreduce:'))
          .map((c) => [c.permission, c.status]),
      );
      expect(status).toEqual({
        'elasticmapreduce:ListClusters': 'held',
        'elasticmapreduce:DescribeCluster': 'held',
        'elasticmapreduce:ListSteps': 'held',
        'elasticmapreduce:ListInstanceGroups': 'held',
        'elasticmapreduce:ListInstanceFleets': 'unknown',
        'elasticmapreduce:ListInstances': 'held',
        'elasticmapreduce:ModifyInstanceGroups': 'unknown',
        'elasticmapreduce:ModifyInstanceFleet': 'unknown',
        'elasticmapreduce:PutManagedScalingPolicy': 'unknown',
      });
      expect(checks.filter((c) => c.permission.startsWith('s3:')).every((c) => c.status === 'held')).toBe(
        true,
      );
    });

    it('reads the instance types a release supports from moto’s ListSupportedInstanceTypes, every page', async () => {
      const supported = await cachedSupportedInstanceTypes(async () => client)('acct', 'emr-7.2.0');
      expect(supported?.has('m5.xlarge')).toBe(true);
      // more than one page of EMR's 50
      expect(supported?.size ?? 0).toBeGreaterThan(50);
    });

    it('assumes a role with an external id through STS before calling EMR', async () => {
      const assumed: EmrConnection = {
        region: 'us-east-1',
        endpoint: moto.endpoint,
        stsEndpoint: moto.endpoint,
        credentials: {
          kind: 'assume-role',
          roleArn: 'arn:aws:iam::123456789012:role/setpoint-reader',
          externalId: 'setpoint-external-id',
          source: { kind: 'access-keys', ...keys },
        },
      };
      const credentials = await credentialProvider(assumed)();
      expect(credentials.accessKeyId).toMatch(/^ASIA/);
      expect(credentials.sessionToken).toBeTruthy();
      const assumedClient = new EmrClient(assumed);
      try {
        const ids: string[] = [];
        for await (const cluster of assumedClient.listClusters()) ids.push(cluster.Id);
        expect(ids.sort()).toEqual([...clusterIds].sort());
      } finally {
        assumedClient.close();
      }
    });
  },
);
