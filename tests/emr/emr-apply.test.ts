import {
  AddJobFlowStepsCommand,
  EMRClient,
  RunJobFlowCommand,
  type RunJobFlowCommandInput,
} from '@aws-sdk/client-emr';
import { type RunningEmulator, startEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import { EmrClient } from 'setpoint/platforms/emr/api/emr-client';
import { applyResize, planClusterResize, revertResize } from 'setpoint/platforms/emr/apply/cluster-resizer';
import type { RecommendedConfiguration } from 'setpoint/platforms/emr/apply/resize-plan';
import { clusterShapeOf } from 'setpoint/platforms/emr/collect/step-collector';
import { choiceOfShape } from 'setpoint/platforms/emr/recommender/emr-choice';
import { emrConfigurationOf } from 'setpoint/platforms/emr/recommender/emr-configuration';
import { shippedCatalog } from 'setpoint/pricing/catalog/shipped-catalog';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const keys = { accessKeyId: 'AKIAEMULATOR0000', secretAccessKey: 'emulator-secret' };
const minute = 60_000;

const longRunning = (name: string): RunJobFlowCommandInput => ({
  Name: name,
  ReleaseLabel: 'emr-7.2.0',
  Instances: {
    KeepJobFlowAliveWhenNoSteps: true,
    InstanceGroups: [
      { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
      { InstanceRole: 'CORE', InstanceType: 'r5.2xlarge', InstanceCount: 3 },
      { InstanceRole: 'TASK', InstanceType: 'r5.2xlarge', InstanceCount: 6, Market: 'SPOT' },
    ],
  },
  ManagedScalingPolicy: {
    ComputeLimits: { UnitType: 'Instances', MinimumCapacityUnits: 3, MaximumCapacityUnits: 9 },
  },
});

describe('applying a recommendation to a long-running EMR cluster (emulator)', () => {
  let emulator: RunningEmulator;
  let launcher: EMRClient;
  let client: EmrClient;

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, clockSpeed: 0, preloadJobs: false });
    launcher = new EMRClient({ endpoint: emulator.url, region: 'us-east-1', credentials: keys });
    client = new EmrClient({
      region: 'us-east-1',
      credentials: { kind: 'access-keys', ...keys },
      endpoint: emulator.url,
    });
  });

  afterAll(async () => {
    client?.close();
    launcher?.destroy();
    await emulator?.close();
  });

  async function recommendationFor(clusterId: string, task: number): Promise<RecommendedConfiguration> {
    const shape = await clusterShapeOf(client, await client.describeCluster(clusterId));
    const current = choiceOfShape(
      shape,
      { transient: false, rootVolumeGb: null },
      shippedCatalog.instanceTypes,
    );
    return emrConfigurationOf({ ...current, task }) as unknown as RecommendedConfiguration;
  }

  it('resizes the task group and the scaling limits, then reverts both exactly', async () => {
    const { JobFlowId: id } = await launcher.send(new RunJobFlowCommand(longRunning('shared-etl')));
    emulator.context.clock.advance(15 * minute);
    const recommended = await recommendationFor(id as string, 2);
    const plan = await planClusterResize(client, id as string, recommended);
    expect(plan.actions.map((action) => action.kind)).toEqual(['instance-group', 'managed-scaling']);
    await applyResize(client, plan);
    const task = (await client.listInstanceGroups(id as string)).find(
      (group) => group.InstanceGroupType === 'TASK',
    );
    expect(task?.RequestedInstanceCount).toBe(2);
    expect(await client.getManagedScalingPolicy(id as string)).toMatchObject({
      MinimumCapacityUnits: 3,
      MaximumCapacityUnits: 5,
      MaximumCoreCapacityUnits: 3,
    });
    // Applying the same recommendation again changes nothing.
    expect((await planClusterResize(client, id as string, recommended)).actions).toEqual([]);

    await revertResize(client, plan);
    const reverted = (await client.listInstanceGroups(id as string)).find(
      (group) => group.InstanceGroupType === 'TASK',
    );
    expect(reverted?.RequestedInstanceCount).toBe(6);
    expect(await client.getManagedScalingPolicy(id as string)).toEqual({
      UnitType: 'Instances',
      MinimumCapacityUnits: 3,
      MaximumCapacityUnits: 9,
    });
  });

  it('refuses what would need a new cluster: other instance types, another core count, a transient cluster', async () => {
    const { JobFlowId: id } = await launcher.send(new RunJobFlowCommand(longRunning('guarded')));
    emulator.context.clock.advance(15 * minute);
    const recommended = await recommendationFor(id as string, 4);
    const groups = recommended.Instances.InstanceGroups ?? [];
    const retyped = {
      ...recommended,
      Instances: {
        InstanceGroups: groups.map((g) =>
          g.InstanceRole === 'TASK' ? { ...g, InstanceType: 'm5.2xlarge' } : g,
        ),
      },
    };
    await expect(planClusterResize(client, id as string, retyped)).rejects.toThrow(
      /no TASK group of m5.2xlarge/,
    );
    const moreCore = {
      ...recommended,
      Instances: {
        InstanceGroups: groups.map((g) => (g.InstanceRole === 'CORE' ? { ...g, InstanceCount: 5 } : g)),
      },
    };
    await expect(planClusterResize(client, id as string, moreCore)).rejects.toThrow(
      /core instances hold HDFS/,
    );

    const { JobFlowId: transientId } = await launcher.send(
      new RunJobFlowCommand({
        ...longRunning('transient'),
        Instances: { ...longRunning('transient').Instances, KeepJobFlowAliveWhenNoSteps: false },
      }),
    );
    await expect(planClusterResize(client, transientId as string, recommended)).rejects.toMatchObject({
      code: 'EMR_APPLY_REFUSED',
      message: expect.stringMatching(/is transient/),
    });
  });

  it('does not remove task instances under a running step, but grows them', async () => {
    const { JobFlowId: id } = await launcher.send(new RunJobFlowCommand(longRunning('busy')));
    emulator.context.clock.advance(15 * minute);
    await launcher.send(
      new AddJobFlowStepsCommand({
        JobFlowId: id,
        Steps: [
          {
            Name: 'etl',
            HadoopJarStep: {
              Jar: 'command-runner.jar',
              Args: ['spark-submit', 's3://jobs/spill-heavy-sort.py'],
            },
          },
        ],
      }),
    );
    await expect(
      planClusterResize(client, id as string, await recommendationFor(id as string, 2)),
    ).rejects.toThrow(/running a step/);
    const grow = await planClusterResize(client, id as string, await recommendationFor(id as string, 8));
    expect(grow.actions[0]).toMatchObject({ kind: 'instance-group', from: 6, to: 8 });
  });
});
