import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import {
  AddJobFlowStepsCommand,
  DescribeClusterCommand,
  EMRClient,
  GetManagedScalingPolicyCommand,
  InvalidRequestException,
  ListInstanceFleetsCommand,
  ListInstanceGroupsCommand,
  ListStepsCommand,
  ListSupportedInstanceTypesCommand,
  ModifyInstanceFleetCommand,
  ModifyInstanceGroupsCommand,
  PutManagedScalingPolicyCommand,
  paginateListClusters,
  paginateListInstances,
  RunJobFlowCommand,
  type RunJobFlowCommandInput,
  TerminateJobFlowsCommand,
} from '@aws-sdk/client-emr';
import { type RunningEmulator, startEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import { S3Client } from '@setpoint/foundation/s3';
import { analyzeEventLog } from 'setpoint/eventlog/analyze-event-log';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3TestServer, startS3TestServer } from '../support/s3-test-server.js';

const start = Date.UTC(2026, 2, 2, 6, 0, 0);
const minute = 60_000;

async function readText(s3: S3Client, bucket: string, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await s3.getObject(bucket, key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const transientCluster = (name: string, eventLogDir?: string): RunJobFlowCommandInput => ({
  Name: name,
  ReleaseLabel: 'emr-7.2.0',
  LogUri: 's3://emr-logs/logs/',
  Applications: [{ Name: 'Spark' }],
  Tags: [{ Key: 'setpoint:project-id', Value: 'nightly-orders' }],
  ...(eventLogDir
    ? {
        Configurations: [
          { Classification: 'spark-defaults', Properties: { 'spark.eventLog.dir': eventLogDir } },
        ],
      }
    : {}),
  Instances: {
    KeepJobFlowAliveWhenNoSteps: false,
    InstanceGroups: [
      { Name: 'Primary', InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
      {
        Name: 'Core',
        InstanceRole: 'CORE',
        InstanceType: 'm5.2xlarge',
        InstanceCount: 3,
        EbsConfiguration: {
          EbsBlockDeviceConfigs: [
            { VolumeSpecification: { VolumeType: 'gp3', SizeInGB: 64 }, VolumesPerInstance: 2 },
          ],
        },
      },
      { Name: 'Task', InstanceRole: 'TASK', Market: 'SPOT', InstanceType: 'r5.xlarge', InstanceCount: 2 },
    ],
  },
  Steps: [
    {
      Name: 'orders-etl',
      ActionOnFailure: 'TERMINATE_CLUSTER',
      HadoopJarStep: {
        Jar: 'command-runner.jar',
        Args: ['spark-submit', '--deploy-mode', 'cluster', 's3://jobs/jobbank/join-heavy-etl.py'],
      },
    },
  ],
  ServiceRole: 'EMR_DefaultRole',
  JobFlowRole: 'EMR_EC2_DefaultRole',
});

describe('the emulator EMR face, through the AWS SDK for JavaScript v3', () => {
  let s3Server: S3TestServer;
  let emulator: RunningEmulator;
  let emr: EMRClient;
  let s3: S3Client;

  beforeAll(async () => {
    s3Server = await startS3TestServer(['emr-logs', 'spark-events']);
    emulator = await startEmulator({
      port: 0,
      clockSpeed: 0,
      startTimeMs: start,
      preloadJobs: false,
      s3LogDelivery: { endpoint: s3Server.endpoint, credentials: s3Server.credentials },
    });
    emr = new EMRClient({
      endpoint: emulator.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIAEMULATOR', secretAccessKey: 'emulator-secret' },
      maxAttempts: 1,
    });
    s3 = new S3Client({
      region: 'us-east-1',
      endpoint: s3Server.endpoint,
      credentials: s3Server.credentials,
    });
  });

  afterAll(async () => {
    emr?.destroy();
    s3?.close();
    await emulator?.close();
    await s3Server?.close();
  });

  const advance = (ms: number) => emulator.context.clock.advance(ms);

  /** A long-running cluster of `transientCluster`'s groups, without steps, waiting 20 minutes later. */
  async function startLongRunning(name: string): Promise<string> {
    const request = transientCluster(name);
    const { JobFlowId } = await emr.send(
      new RunJobFlowCommand({
        ...request,
        Steps: [],
        Instances: { ...request.Instances, KeepJobFlowAliveWhenNoSteps: true },
      }),
    );
    advance(20 * minute);
    return JobFlowId as string;
  }

  it('runs a transient cluster: states, step, instance timeline and a real event log on S3', async () => {
    const { JobFlowId: id, ClusterArn } = await emr.send(
      new RunJobFlowCommand(transientCluster('nightly-orders', 's3://spark-events/apps/')),
    );
    expect(id).toMatch(/^j-[A-Z0-9]{13}$/);
    expect(ClusterArn).toBe(`arn:aws:elasticmapreduce:us-east-1:123456789012:cluster/${id}`);
    const starting = await emr.send(new DescribeClusterCommand({ ClusterId: id }));
    expect(starting.Cluster?.Status?.State).toBe('STARTING');
    expect(starting.Cluster?.Status?.Timeline?.CreationDateTime?.getTime()).toBe(start);
    expect(starting.Cluster?.InstanceCollectionType).toBe('INSTANCE_GROUP');
    expect(starting.Cluster?.Tags).toEqual([{ Key: 'setpoint:project-id', Value: 'nightly-orders' }]);

    advance(10 * minute);
    expect((await emr.send(new DescribeClusterCommand({ ClusterId: id }))).Cluster?.Status?.State).toBe(
      'RUNNING',
    );
    const running = await emr.send(new ListStepsCommand({ ClusterId: id }));
    expect(running.Steps?.[0]?.Status?.State).toBe('RUNNING');

    advance(6 * 60 * minute);
    const ended = (await emr.send(new DescribeClusterCommand({ ClusterId: id }))).Cluster;
    expect(ended?.Status?.State).toBe('TERMINATED');
    expect(ended?.Status?.StateChangeReason?.Code).toBe('ALL_STEPS_COMPLETED');
    const step = (await emr.send(new ListStepsCommand({ ClusterId: id }))).Steps?.[0];
    expect(step?.Status?.State).toBe('COMPLETED');
    expect(step?.Config?.Args).toContain('s3://jobs/jobbank/join-heavy-etl.py');
    const stepStart = step?.Status?.Timeline?.StartDateTime?.getTime() ?? 0;
    const stepEnd = step?.Status?.Timeline?.EndDateTime?.getTime() ?? 0;
    expect(stepStart).toBe(ended?.Status?.Timeline?.ReadyDateTime?.getTime());
    expect(stepEnd).toBeGreaterThan(stepStart + minute);

    const groups = (await emr.send(new ListInstanceGroupsCommand({ ClusterId: id }))).InstanceGroups ?? [];
    expect(
      groups.map((group) => [group.InstanceGroupType, group.InstanceType, group.RequestedInstanceCount]),
    ).toEqual([
      ['MASTER', 'm5.xlarge', 1],
      ['CORE', 'm5.2xlarge', 3],
      ['TASK', 'r5.xlarge', 2],
    ]);
    expect(groups[1]?.EbsBlockDevices?.map((device) => device.VolumeSpecification?.SizeInGB)).toEqual([
      64, 64,
    ]);

    const instances = [];
    for await (const page of paginateListInstances({ client: emr }, { ClusterId: id }))
      instances.push(...(page.Instances ?? []));
    expect(instances).toHaveLength(6);
    const end = ended?.Status?.Timeline?.EndDateTime?.getTime();
    for (const instance of instances) {
      expect(instance.Status?.State).toBe('TERMINATED');
      expect(instance.Status?.Timeline?.CreationDateTime?.getTime()).toBe(start);
      expect(instance.Status?.Timeline?.EndDateTime?.getTime()).toBe(end);
    }
    expect(instances.filter((instance) => instance.Market === 'SPOT').map((i) => i.InstanceType)).toEqual([
      'r5.xlarge',
      'r5.xlarge',
    ]);
    expect(instances.find((i) => i.InstanceGroupId === groups[1]?.Id)?.EbsVolumes).toHaveLength(2);

    // The step's stderr names its YARN application; the event log sits under spark.eventLog.dir.
    await emulator.emr.logsWritten();
    const stderr = gunzipSync(
      await readText(s3, 'emr-logs', `logs/${id}/steps/${step?.Id}/stderr.gz`),
    ).toString();
    const applicationId = /Submitted application (application_\d+_\d+)/.exec(stderr)?.[1];
    expect(applicationId).toMatch(/^application_\d{13}_0001$/);
    const eventLog = await readText(s3, 'spark-events', `apps/${applicationId}`);
    const directory = mkdtempSync(path.join(tmpdir(), 'setpoint-emr-log-'));
    writeFileSync(path.join(directory, applicationId as string), eventLog);
    const profile = await analyzeEventLog(path.join(directory, applicationId as string));
    expect(profile.application.id).toBe(applicationId);
    expect(profile.application.name).toBe('orders-etl');
    expect(profile.application.sparkVersion).toBe('3.5.0');
    expect(profile.application.startTime).toBe(stepStart + 12_000);
    expect(profile.totals.tasks).toBeGreaterThan(0);
    expect(eventLog.toString()).not.toContain('spark.databricks');
  });

  it('plans a transient cluster ahead of a stopped clock as catching up would, and shows it only as time passes', async () => {
    // two workspaces of one seed launch the same cluster: one plans it ahead, the other's clock catches up
    const twins = await Promise.all(
      [0, 1].map(() => startEmulator({ port: 0, clockSpeed: 0, startTimeMs: start, preloadJobs: false })),
    );
    const clients = twins.map(
      (twin) =>
        new EMRClient({
          endpoint: twin.url,
          region: 'us-east-1',
          credentials: { accessKeyId: 'AKIAEMULATOR', secretAccessKey: 'emulator-secret' },
          maxAttempts: 1,
        }),
    );
    const [planner] = twins as [RunningEmulator, RunningEmulator];
    const [plannerEmr, referenceEmr] = clients as [EMRClient, EMRClient];
    const advanceBoth = (ms: number) => {
      for (const twin of twins) twin.context.clock.advance(ms);
    };
    const cluster = async (client: EMRClient, id: string | undefined) =>
      (await client.send(new DescribeClusterCommand({ ClusterId: id }))).Cluster;
    const stepOf = async (client: EMRClient, id: string | undefined) =>
      (await client.send(new ListStepsCommand({ ClusterId: id }))).Steps?.[0]?.Status;
    try {
      const { JobFlowId: planned } = await plannerEmr.send(new RunJobFlowCommand(transientCluster('orders')));
      const { JobFlowId: caughtUp } = await referenceEmr.send(
        new RunJobFlowCommand(transientCluster('orders')),
      );
      const terminatedAt = planner.emr.plannedTerminationOf(planned as string) as number;
      expect(terminatedAt).toBeGreaterThan(start + 10 * minute);
      expect((await cluster(plannerEmr, planned))?.Status?.State).toBe('STARTING');
      expect((await stepOf(plannerEmr, planned))?.State).toBe('PENDING');

      advanceBoth(terminatedAt - 1 - start);
      expect((await cluster(plannerEmr, planned))?.Status?.State).toBe('TERMINATING');
      advanceBoth(1);
      const ended = await cluster(plannerEmr, planned);
      expect(ended?.Status?.State).toBe('TERMINATED');
      expect(ended?.Status?.Timeline?.EndDateTime?.getTime()).toBe(terminatedAt);
      expect(ended?.Status?.Timeline).toEqual((await cluster(referenceEmr, caughtUp))?.Status?.Timeline);
      const step = await stepOf(plannerEmr, planned);
      expect(step?.State).toBe('COMPLETED');
      expect(step?.Timeline).toEqual((await stepOf(referenceEmr, caughtUp))?.Timeline);
    } finally {
      for (const client of clients) client.destroy();
      await Promise.all(twins.map((twin) => twin.close()));
    }
  });

  it('gives clusters launched at the same instant their own applications and event logs in a shared directory', async () => {
    const launched = await Promise.all(
      ['same-instant-a', 'same-instant-b'].map(
        async (name) =>
          (await emr.send(new RunJobFlowCommand(transientCluster(name, 's3://spark-events/shared/'))))
            .JobFlowId,
      ),
    );
    const [first, second] = await Promise.all(
      launched.map(async (id) => (await emr.send(new DescribeClusterCommand({ ClusterId: id }))).Cluster),
    );
    expect(first?.Status?.Timeline?.CreationDateTime).toEqual(second?.Status?.Timeline?.CreationDateTime);
    advance(6 * 60 * minute);
    emulator.emr.catchUp();
    await emulator.emr.logsWritten();

    const applications: string[] = [];
    for (const id of launched) {
      const step = (await emr.send(new ListStepsCommand({ ClusterId: id }))).Steps?.[0];
      const stderr = gunzipSync(
        await readText(s3, 'emr-logs', `logs/${id}/steps/${step?.Id}/stderr.gz`),
      ).toString();
      const applicationId = /Submitted application (application_\d+_\d+)/.exec(stderr)?.[1] as string;
      applications.push(applicationId);
      // the log under that name is this cluster's: its application started when this step did
      const directory = mkdtempSync(path.join(tmpdir(), 'setpoint-emr-log-'));
      writeFileSync(
        path.join(directory, applicationId),
        await readText(s3, 'spark-events', `shared/${applicationId}`),
      );
      const profile = await analyzeEventLog(path.join(directory, applicationId));
      expect(profile.application.startTime).toBe(
        (step?.Status?.Timeline?.StartDateTime?.getTime() ?? 0) + 12_000,
      );
    }
    expect(new Set(applications).size).toBe(2);
  });

  it('keeps event logs on HDFS (nothing on S3) when spark.eventLog.dir is left at its default', async () => {
    const { JobFlowId: id } = await emr.send(new RunJobFlowCommand(transientCluster('hdfs-logs')));
    advance(6 * 60 * minute);
    const step = (await emr.send(new ListStepsCommand({ ClusterId: id }))).Steps?.[0];
    expect(step?.Status?.State).toBe('COMPLETED');
    await emulator.emr.logsWritten();
    const objects = await s3.list('spark-events', '');
    const stderr = gunzipSync(
      await readText(s3, 'emr-logs', `logs/${id}/steps/${step?.Id}/stderr.gz`),
    ).toString();
    const applicationId = /Submitted application (application_\d+_\d+)/.exec(stderr)?.[1];
    expect(objects.map((object) => object.key)).not.toContain(`apps/${applicationId}`);
  });

  it('resizes a long-running cluster, refuses to resize the primary group, and terminates it on request', async () => {
    const id = await startLongRunning('shared-etl');
    expect((await emr.send(new DescribeClusterCommand({ ClusterId: id }))).Cluster?.Status?.State).toBe(
      'WAITING',
    );
    const groups = (await emr.send(new ListInstanceGroupsCommand({ ClusterId: id }))).InstanceGroups ?? [];
    const core = groups.find((group) => group.InstanceGroupType === 'CORE');
    const master = groups.find((group) => group.InstanceGroupType === 'MASTER');
    await emr.send(
      new ModifyInstanceGroupsCommand({
        ClusterId: id,
        InstanceGroups: [{ InstanceGroupId: core?.Id, InstanceCount: 5 }],
      }),
    );
    const resizing = (await emr.send(new ListInstanceGroupsCommand({ ClusterId: id }))).InstanceGroups?.find(
      (g) => g.Id === core?.Id,
    );
    expect([
      resizing?.RequestedInstanceCount,
      resizing?.RunningInstanceCount,
      resizing?.Status?.State,
    ]).toEqual([5, 3, 'RESIZING']);
    advance(15 * minute);
    const resized = (await emr.send(new ListInstanceGroupsCommand({ ClusterId: id }))).InstanceGroups?.find(
      (g) => g.Id === core?.Id,
    );
    expect([resized?.RunningInstanceCount, resized?.Status?.State]).toEqual([5, 'RUNNING']);
    await expect(
      emr.send(
        new ModifyInstanceGroupsCommand({
          ClusterId: id,
          InstanceGroups: [{ InstanceGroupId: master?.Id, InstanceCount: 2 }],
        }),
      ),
    ).rejects.toBeInstanceOf(InvalidRequestException);

    const { StepIds } = await emr.send(
      new AddJobFlowStepsCommand({
        JobFlowId: id,
        Steps: [
          {
            Name: 'hourly',
            HadoopJarStep: {
              Jar: 'command-runner.jar',
              Args: ['spark-submit', 's3://jobs/daily-aggregation.py'],
            },
          },
        ],
      }),
    );
    expect(StepIds).toHaveLength(1);
    await emr.send(
      new PutManagedScalingPolicyCommand({
        ClusterId: id,
        ManagedScalingPolicy: {
          ComputeLimits: { UnitType: 'Instances', MinimumCapacityUnits: 2, MaximumCapacityUnits: 8 },
        },
      }),
    );
    const policy = await emr.send(new GetManagedScalingPolicyCommand({ ClusterId: id }));
    expect(policy.ManagedScalingPolicy?.ComputeLimits?.MaximumCapacityUnits).toBe(8);

    await emr.send(new TerminateJobFlowsCommand({ JobFlowIds: [id] }));
    advance(2 * minute);
    const ended = (await emr.send(new DescribeClusterCommand({ ClusterId: id }))).Cluster;
    expect([ended?.Status?.State, ended?.Status?.StateChangeReason?.Code]).toEqual([
      'TERMINATED',
      'USER_REQUEST',
    ]);
    await expect(emr.send(new DescribeClusterCommand({ ClusterId: 'j-NOTACLUSTER01' }))).rejects.toThrow(
      /Cluster id 'j-NOTACLUSTER01' is not valid/,
    );
  });

  it('runs instance fleets: targets, provisioned capacity and fleet resizes', async () => {
    const { JobFlowId: id } = await emr.send(
      new RunJobFlowCommand({
        Name: 'fleet-cluster',
        ReleaseLabel: 'emr-7.2.0',
        Instances: {
          KeepJobFlowAliveWhenNoSteps: true,
          InstanceFleets: [
            {
              InstanceFleetType: 'MASTER',
              TargetOnDemandCapacity: 1,
              InstanceTypeConfigs: [{ InstanceType: 'm5.xlarge' }],
            },
            {
              InstanceFleetType: 'CORE',
              TargetOnDemandCapacity: 4,
              TargetSpotCapacity: 4,
              InstanceTypeConfigs: [
                { InstanceType: 'm5.2xlarge', WeightedCapacity: 2 },
                { InstanceType: 'm5.4xlarge', WeightedCapacity: 4 },
              ],
            },
          ],
        },
      }),
    );
    advance(10 * minute);
    const fleets = (await emr.send(new ListInstanceFleetsCommand({ ClusterId: id }))).InstanceFleets ?? [];
    const core = fleets.find((fleet) => fleet.InstanceFleetType === 'CORE');
    expect([core?.ProvisionedOnDemandCapacity, core?.ProvisionedSpotCapacity]).toEqual([4, 4]);
    await emr.send(
      new ModifyInstanceFleetCommand({
        ClusterId: id,
        InstanceFleet: { InstanceFleetId: core?.Id, TargetSpotCapacity: 8 },
      }),
    );
    advance(10 * minute);
    const instances = [];
    for await (const page of paginateListInstances(
      { client: emr },
      { ClusterId: id, InstanceFleetType: 'CORE' },
    ))
      instances.push(...(page.Instances ?? []));
    expect(instances.filter((i) => i.Market === 'SPOT' && i.Status?.State === 'RUNNING')).toHaveLength(4);
    await expect(emr.send(new ListInstanceGroupsCommand({ ClusterId: id }))).rejects.toBeInstanceOf(
      InvalidRequestException,
    );
    await expect(
      emr.send(
        new PutManagedScalingPolicyCommand({
          ClusterId: id,
          ManagedScalingPolicy: {
            ComputeLimits: { UnitType: 'Instances', MinimumCapacityUnits: 2, MaximumCapacityUnits: 8 },
          },
        }),
      ),
    ).rejects.toThrow(/UnitType Instances does not apply/);
  });

  it('lists the instance types a release supports, page by page; a region without one leaves it out and refuses it', async () => {
    const listAll = async (client: EMRClient) => {
      const types: string[] = [];
      let marker: string | undefined;
      let pages = 0;
      do {
        const output = await client.send(
          new ListSupportedInstanceTypesCommand({
            ReleaseLabel: 'emr-7.2.0',
            ...(marker ? { Marker: marker } : {}),
          }),
        );
        types.push(...(output.SupportedInstanceTypes ?? []).map((type) => type.Type ?? ''));
        marker = output.Marker;
        pages += 1;
      } while (marker && pages < 20);
      return { types, pages };
    };
    const everywhere = await listAll(emr);
    expect(everywhere.pages).toBe(Math.ceil(everywhere.types.length / 50));
    expect(new Set(everywhere.types).size).toBe(everywhere.types.length);
    const first = await emr.send(new ListSupportedInstanceTypesCommand({ ReleaseLabel: 'emr-7.2.0' }));
    expect(first.SupportedInstanceTypes?.find((type) => type.Type === 'm5.xlarge')).toMatchObject({
      VCPU: 4,
      MemoryGB: 16,
      Architecture: 'x86_64',
      EbsStorageOnly: true,
    });
    await expect(
      emr.send(new ListSupportedInstanceTypesCommand({ ReleaseLabel: 'seven' })),
    ).rejects.toMatchObject({
      name: 'ValidationException',
    });

    const narrow = await startEmulator({
      port: 0,
      clockSpeed: 0,
      startTimeMs: start,
      preloadJobs: false,
      emr: { unsupportedInstanceTypes: ['r5.xlarge'] },
    });
    const narrowEmr = new EMRClient({
      endpoint: narrow.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIAEMULATOR', secretAccessKey: 'emulator-secret' },
      maxAttempts: 1,
    });
    try {
      const listed = await listAll(narrowEmr);
      expect(listed.types).not.toContain('r5.xlarge');
      expect(listed.types).toHaveLength(everywhere.types.length - 1);
      // the transient cluster's task group asks for r5.xlarge
      await expect(narrowEmr.send(new RunJobFlowCommand(transientCluster('narrow')))).rejects.toMatchObject({
        name: 'ValidationException',
        message: expect.stringContaining(
          'The instance type r5.xlarge is not supported by emr-7.2.0 in us-east-1',
        ),
      });
    } finally {
      narrowEmr.destroy();
      await narrow.close();
    }
  });

  it('lists clusters newest first, page by page', async () => {
    const ids: string[] = [];
    for await (const page of paginateListClusters({ client: emr }, {}))
      ids.push(...(page.Clusters ?? []).map((c) => c.Id as string));
    // every cluster the tests above launched
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
  });

  it('refuses what EMR refuses with a ValidationException naming the problem, changes nothing and remembers it', async () => {
    const refusals = async () =>
      (
        (await (
          await fetch(`${emulator.url}/emulator/admin/refusals`, {
            headers: { authorization: `Bearer ${emulator.token}` },
          })
        ).json()) as { refusals: Array<{ endpoint: string; rule: string; field: string }> }
      ).refusals;
    const clustersBefore = emulator.emr.clusters.size;
    const earlier = (await refusals()).length;
    const request = transientCluster('refused');
    const groups = request.Instances?.InstanceGroups ?? [];
    const refusedLaunches: Array<[RunJobFlowCommandInput, string]> = [
      [
        {
          ...request,
          Instances: {
            InstanceGroups: groups.map((g) => (g.InstanceRole === 'MASTER' ? { ...g, InstanceCount: 2 } : g)),
          },
        },
        'The MASTER instance group has 1 or 3 instances.',
      ],
      [
        {
          ...request,
          Instances: {
            InstanceGroups: groups.map((g) =>
              g.InstanceRole === 'CORE'
                ? {
                    ...g,
                    EbsConfiguration: {
                      EbsBlockDeviceConfigs: [{ VolumeSpecification: { VolumeType: 'gp3', SizeInGB: 2048 } }],
                    },
                  }
                : g,
            ),
          },
        },
        'The volume size 2048 GiB is outside 1 - 1024.',
      ],
    ];
    for (const [launch, message] of refusedLaunches) {
      const refused = emr.send(new RunJobFlowCommand(launch));
      await expect(refused).rejects.toMatchObject({
        name: 'ValidationException',
        message,
        $metadata: { httpStatusCode: 400 },
      });
    }
    expect(emulator.emr.clusters.size).toBe(clustersBefore);

    const id = await startLongRunning('refusing');
    // instance-group units in fleet units: EMR refuses the policy and the cluster keeps none
    await expect(
      emr.send(
        new PutManagedScalingPolicyCommand({
          ClusterId: id,
          ManagedScalingPolicy: {
            ComputeLimits: {
              UnitType: 'InstanceFleetUnits',
              MinimumCapacityUnits: 2,
              MaximumCapacityUnits: 8,
            },
          },
        }),
      ),
    ).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'UnitType InstanceFleetUnits does not apply to an INSTANCE_GROUP cluster.',
    });
    expect(
      (await emr.send(new GetManagedScalingPolicyCommand({ ClusterId: id }))).ManagedScalingPolicy,
    ).toBeUndefined();
    const task = (await emr.send(new ListInstanceGroupsCommand({ ClusterId: id }))).InstanceGroups?.find(
      (group) => group.InstanceGroupType === 'TASK',
    );
    await expect(
      emr.send(
        new ModifyInstanceGroupsCommand({
          ClusterId: id,
          InstanceGroups: [{ InstanceGroupId: task?.Id, InstanceCount: -1 }],
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException', message: 'InstanceCount -1 must be 0 or more.' });
    expect(
      (await emr.send(new ListInstanceGroupsCommand({ ClusterId: id }))).InstanceGroups?.find(
        (g) => g.Id === task?.Id,
      )?.RequestedInstanceCount,
    ).toBe(task?.RequestedInstanceCount);

    expect(
      (await refusals()).slice(earlier).map(({ endpoint, rule, field }) => [endpoint, rule, field]),
    ).toEqual([
      ['ElasticMapReduce.RunJobFlow', 'node-roles', 'Instances.InstanceGroups[0].InstanceCount'],
      [
        'ElasticMapReduce.RunJobFlow',
        'ebs-volumes',
        'Instances.InstanceGroups[1].EbsConfiguration.EbsBlockDeviceConfigs[0].VolumeSpecification.SizeInGB',
      ],
      [
        'ElasticMapReduce.PutManagedScalingPolicy',
        'compute-limits',
        'ManagedScalingPolicy.ComputeLimits.UnitType',
      ],
      ['ElasticMapReduce.ModifyInstanceGroups', 'instance-counts', 'InstanceGroups[0].InstanceCount'],
    ]);
    await emr.send(new TerminateJobFlowsCommand({ JobFlowIds: [id] }));
  });

  it('refuses requests without a SigV4 Authorization header', async () => {
    const response = await fetch(`${emulator.url}/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'ElasticMapReduce.ListClusters',
      },
      body: '{}',
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      __type: 'MissingAuthenticationTokenException',
      Message: 'Missing Authentication Token',
    });
  });
});
