import { defaultProjectSettings, type ProjectSettings } from '@setpoint/api-contract';
import { describe, expect, it } from 'vitest';
import { computeCost } from '../../../../../../tests/support/run-costs.js';
import { createCostModel } from '../../../cost/cost-model.js';
import type { ModelProfile } from '../../../eventlog/model-profile.js';
import { shippedCatalog } from '../../../pricing/catalog/shipped-catalog.js';
import { createPriceCatalog } from '../../../pricing/price-catalog.js';
import { learningRuns } from '../../../service/recommender/learning.js';
import { marketSwapsOf } from '../../../service/recommender/optimizer-recommender.js';
import type { RecommendationInput } from '../../../service/recommender/recommender.js';
import type { RecommenderRun } from '../../../service/recommender/recommender-run.js';
import type { EmrClusterShape } from '../cluster-shape/emr-cluster-shape.js';
import type { EmrRunReport } from '../runs/emr-run-report.js';
import { buildEmrCandidateSpace } from './emr-candidates.js';
import { choiceOfShape, costSpecOfChoice } from './emr-choice.js';
import { emrClusterModel, emrRecommender } from './emr-recommender.js';

const catalog = createPriceCatalog([shippedCatalog]);
const nodeTypes = shippedCatalog.instanceTypes;
const vcpusOf = (type: string) => nodeTypes.find((entry) => entry.instanceType === type)?.vcpus ?? 4;
const recommender = emrRecommender({ catalog, nodeTypes });
const costModel = createCostModel(catalog);

/** What a run on the spec costs, priced as the coster does for a transient cluster (expected spot price). */
function runCostUsd(spec: GroupsSpec, transient = true): number {
  const choice = choiceOfShape(groupsShape(spec), { transient, rootVolumeGb: null }, nodeTypes);
  const rate = costModel.rateCluster(costSpecOfChoice(choice, 'us-east-1')).usdPerHour(spec.core + spec.task);
  return (rate.expected * runtimeS(spec.type, spec.core + spec.task)) / 3600;
}

/** A CPU-bound job: 60 s of driver time plus 600 core-minutes over the executor cores. */
const runtimeS = (type: string, nodes: number) => 60 + (600 * 60) / (nodes * vcpusOf(type));

interface GroupsSpec {
  primary?: string;
  type: string;
  core: number;
  task: number;
  taskSpot?: boolean;
  scaling?: boolean;
}

function groupsShape(spec: GroupsSpec): EmrClusterShape {
  return {
    kind: 'instance-groups',
    groups: [
      {
        role: 'MASTER',
        instanceType: spec.primary ?? 'm5.xlarge',
        count: 1,
        market: 'ON_DEMAND',
        volumes: [],
      },
      {
        role: 'CORE',
        instanceType: spec.type,
        count: spec.core,
        market: 'ON_DEMAND',
        volumes: [{ volumeType: 'gp3', sizeGb: 64 }],
      },
      ...(spec.task > 0
        ? [
            {
              role: 'TASK' as const,
              instanceType: spec.type,
              count: spec.task,
              market: spec.taskSpot ? ('SPOT' as const) : ('ON_DEMAND' as const),
              volumes: [],
            },
          ]
        : []),
    ],
    managedScaling: spec.scaling
      ? { unitType: 'Instances', minimum: spec.core, maximum: spec.core + spec.task }
      : null,
  };
}

/** The groups a recommendation's `Instances` block asks for. */
function specOfConfiguration(configuration: Record<string, unknown>, scaling: boolean): GroupsSpec {
  const groups = (
    configuration.Instances as {
      InstanceGroups: { InstanceRole: string; InstanceType: string; InstanceCount: number; Market: string }[];
    }
  ).InstanceGroups;
  const core = groups.find((group) => group.InstanceRole === 'CORE');
  const task = groups.find((group) => group.InstanceRole === 'TASK');
  if (!core) throw new Error('no core group');
  return {
    type: core.InstanceType,
    core: core.InstanceCount,
    task: task?.InstanceCount ?? 0,
    taskSpot: task?.Market === 'SPOT',
    scaling,
  };
}

function run(index: number, spec: GroupsSpec, transient = true): RecommenderRun {
  const nodes = spec.core + spec.task;
  const seconds = runtimeS(spec.type, nodes);
  const report: EmrRunReport = {
    platform: 'emr',
    region: 'us-east-1',
    cluster: {
      id: `j-RUN${index}`,
      name: 'nightly-orders',
      releaseLabel: 'emr-7.2.0',
      transient,
      logUri: null,
      tags: {},
      createdAt: 0,
      readyAt: 0,
      endedAt: Math.round(seconds * 1000),
      state: 'TERMINATED',
      rootVolumeGb: null,
    },
    step: {
      id: `s-RUN${index}`,
      name: 'orders-etl',
      state: 'COMPLETED',
      startedAt: 0,
      endedAt: Math.round(seconds * 1000),
    },
    shape: groupsShape(spec),
    instances: [],
    scope: 'cluster',
    eventLog: { location: null, applicationId: null },
  };
  const whatIfCounts = [0.25, 0.5, 1, 2, 4].map((factor) => Math.max(1, Math.round(nodes * factor)));
  const profile = {
    application: { durationMs: seconds * 1000, exitCode: null },
    analysis: { wallTimeMs: seconds * 1000, driverTimeMs: 0, criticalPathMs: seconds * 50 },
    executors: { maxConcurrent: nodes, coresPerExecutor: vcpusOf(spec.type) },
    stageCount: 2,
    stages: [0, 1].map((stageId) => ({
      stageId,
      name: stageId === 0 ? 'scan' : 'aggregate',
      numTasks: 200,
      tasks: 200,
      executorRunTimeMs: (stageId + 1) * 1_000_000,
      peakExecutionMemoryBytes: 2 ** 28 * 200,
    })),
    totals: {
      tasks: 400,
      failedJobs: 0,
      inputBytes: 100 * 2 ** 30,
      executorRunTimeMs: 3_000_000,
      diskBytesSpilled: 0,
    },
    whatIf: [...new Set(whatIfCounts)].map((executors) => ({
      executors,
      estimatedDurationMs: runtimeS(spec.type, executors) * 1000,
      estimatedUtilization: 0.8,
      observed: executors === nodes,
    })),
  } as unknown as ModelProfile;
  return {
    id: `run_${index}`,
    externalRunId: `s-RUN${index}`,
    status: 'SUCCESS',
    startedAt: index * 86_400_000,
    endedAt: index * 86_400_000 + seconds * 1000,
    cluster: {
      source: 'cluster_report',
      cloud: 'aws',
      region: 'us-east-1',
      nodeTypeId: spec.type,
      driverNodeTypeId: spec.primary ?? 'm5.xlarge',
      workers: nodes,
      autoscale: null,
      photon: false,
      availability: spec.taskSpot ? 'SPOT' : 'ON_DEMAND',
      sparkVersion: '3.5.0',
    },
    clusterConfig: report as unknown as Record<string, unknown>,
    profile,
    cost: computeCost(runCostUsd(spec, transient)),
    inputBytes: 100 * 2 ** 30,
    recommendationId: null,
  };
}

function input(runs: RecommenderRun[], settings: Partial<ProjectSettings> = {}): RecommendationInput {
  return {
    project: {
      id: 'prj_emr',
      name: 'nightly-orders',
      phase: 'LEARNING',
      settings: { ...defaultProjectSettings(), preference: 'economy', ...settings },
      workspace: {
        id: 'acct',
        platform: 'emr',
        cloud: 'aws',
        region: 'us-east-1',
        planType: null,
        computeType: null,
      },
    },
    basedOnRunId: runs.at(-1)?.id ?? '',
    runs,
    recommendations: [],
  } as RecommendationInput;
}

/** Runs the closed loop: each run uses the previous recommendation. */
function closedLoop(start: GroupsSpec, settings: Partial<ProjectSettings>, transient = true, rounds = 8) {
  let runs = [run(1, start, transient)];
  const outputs = [];
  for (let i = 2; i <= rounds; i++) {
    const output = recommender.recommendNow(input(runs, settings));
    outputs.push(output);
    runs = [...runs, run(i, specOfConfiguration(output.configuration, start.scaling ?? false), transient)];
  }
  return { runs, outputs };
}

describe('emrRecommender (the shared recommender over EMR instance groups)', () => {
  it('recommends a RunJobFlow Instances block: primary, core on-demand, task instances, with the shared phases and explanation', async () => {
    const output = await recommender.recommend(input([run(1, { type: 'm5.2xlarge', core: 2, task: 2 })]));
    expect(output.phase).toBe('LEARNING');
    const groups = (output.configuration.Instances as { InstanceGroups: Record<string, unknown>[] })
      .InstanceGroups;
    expect(groups[0]).toMatchObject({
      InstanceRole: 'MASTER',
      InstanceType: 'm5.xlarge',
      InstanceCount: 1,
      Market: 'ON_DEMAND',
    });
    expect(groups[1]).toMatchObject({ InstanceRole: 'CORE', Market: 'ON_DEMAND' });
    expect(groups[1]?.EbsConfiguration).toEqual({
      EbsBlockDeviceConfigs: [
        { VolumeSpecification: { VolumeType: 'gp3', SizeInGB: 64 }, VolumesPerInstance: 1 },
      ],
    });
    expect(groups[1]?.InstanceCount as number).toBeLessThanOrEqual(2);
    expect(output.explanation).toMatch(
      /^Learning run 1 of at most 8: (it may miss the SLA: )?P\(runtime ≤ SLA\)|^Learning run 1 of at most 8: no SLA set/,
    );
    expect(output.prediction.costUsd!.low).toBeLessThanOrEqual(output.prediction.costUsd!.high);
  });

  it('leaves out worker types the region does not support for the cluster’s release, keeps its own, and says so', async () => {
    const asked: string[][] = [];
    const offered = nodeTypes
      .filter((entry) => entry.cloud === 'aws' && !/^r5\./.test(entry.instanceType))
      .map((entry) => entry.instanceType)
      .filter((type) => type !== 'm5.2xlarge');
    const limited = emrRecommender({
      catalog,
      nodeTypes,
      supportedInstanceTypes: async (accountId, releaseLabel) => {
        asked.push([accountId, releaseLabel]);
        return new Set(offered);
      },
    });
    const runs = [run(1, { type: 'm5.2xlarge', core: 2, task: 2 })];
    const output = await limited.recommend(input(runs));
    expect(asked).toEqual([['acct', 'emr-7.2.0']]);
    const dropped = output.decision?.filtered.find((outcome) => outcome.filter === 'instance-type-supported');
    expect(dropped?.dropped).toBeGreaterThan(0);
    expect(dropped?.example).toMatch(
      /: The instance type r5\.\w+ is not supported by emr-7\.2\.0 in us-east-1 \(ListSupportedInstanceTypes\)\.$/,
    );
    expect(output.explanation).toContain('instance-type-supported removed');
    expect(specOfConfiguration(output.configuration, false).type).not.toMatch(/^r5\./);
    // the running cluster's own type is kept although the list leaves it out
    const space = buildEmrCandidateSpace(nodeTypes, costModel, {
      region: 'us-east-1',
      settings: defaultProjectSettings(),
      current: choiceOfShape(
        groupsShape({ type: 'm5.2xlarge', core: 2, task: 2 }),
        { transient: true, rootVolumeGb: null },
        nodeTypes,
      ),
      observed: [],
      supported: { releaseLabel: 'emr-7.2.0', types: new Set(offered) },
    });
    expect(space.entries.some((entry) => entry.allowed && entry.shape.workerType === 'm5.2xlarge')).toBe(
      true,
    );
    expect(space.entries.some((entry) => entry.shape.workerType.startsWith('r5.'))).toBe(false);
    // without the reader nothing is left out for the release
    const open = await recommender.recommend(input(runs));
    expect(open.decision?.filtered.some((outcome) => outcome.filter === 'instance-type-supported')).toBe(
      false,
    );
  });

  it('closes the loop on a transient cluster: cheaper than where it started, spot only on task instances', () => {
    const start: GroupsSpec = { type: 'm5.4xlarge', core: 4, task: 4 };
    // enough rounds for the default learning phase to end
    const { outputs } = closedLoop(start, { spotPolicy: 'spot-allowed' }, true, 2 + learningRuns);
    for (const output of outputs) {
      const groups = (
        output.configuration.Instances as {
          InstanceGroups: { InstanceRole: string; Market: string; InstanceCount: number }[];
        }
      ).InstanceGroups;
      expect(groups.find((group) => group.InstanceRole === 'CORE')?.Market).toBe('ON_DEMAND');
      expect(groups.find((group) => group.InstanceRole === 'MASTER')?.Market).toBe('ON_DEMAND');
      expect(groups.find((group) => group.InstanceRole === 'CORE')?.InstanceCount).toBeGreaterThanOrEqual(1);
    }
    const last = outputs.at(-1);
    if (!last) throw new Error('no recommendation');
    expect(last.phase).not.toBe('LEARNING');
    // The last recommendation costs less per run than the starting cluster, priced the same way.
    const final = specOfConfiguration(last.configuration, false);
    expect(runCostUsd(final)).toBeLessThan(runCostUsd(start));
  });

  it('never proposes spot with an on-demand-only policy, nor spot task groups under spot-with-fallback (groups cannot fall back)', () => {
    for (const spotPolicy of ['on-demand-only', 'spot-with-fallback'] as const) {
      const { outputs } = closedLoop({ type: 'm5.2xlarge', core: 2, task: 4 }, { spotPolicy }, true, 5);
      for (const output of outputs) expect(JSON.stringify(output.configuration)).not.toContain('SPOT');
    }
  });

  it('on a long-running cluster, keeps a spot task group spot (a running group cannot change market) and names it even when emptied', () => {
    const { outputs } = closedLoop({ type: 'c5.xlarge', core: 2, task: 22, taskSpot: true }, {}, false, 5);
    for (const output of outputs) {
      const task = (
        output.configuration.Instances as {
          InstanceGroups: { InstanceRole: string; Market: string; InstanceCount: number }[];
        }
      ).InstanceGroups.find((group) => group.InstanceRole === 'TASK');
      expect(task?.Market).toBe('SPOT');
      expect(task?.InstanceCount).toBeGreaterThanOrEqual(0);
    }
  });

  it('on a long-running cluster, keeps the instance types and the core count and moves only task instances and the scaling limits', () => {
    const start: GroupsSpec = { type: 'r5.2xlarge', core: 3, task: 6, scaling: true };
    const { outputs } = closedLoop(start, { spotPolicy: 'spot-allowed' }, false, 6);
    for (const output of outputs) {
      const spec = specOfConfiguration(output.configuration, true);
      expect([spec.type, spec.core]).toEqual(['r5.2xlarge', 3]);
      const limits = (output.configuration.ManagedScalingPolicy as { ComputeLimits: Record<string, unknown> })
        .ComputeLimits;
      expect(limits).toMatchObject({
        UnitType: 'Instances',
        MinimumCapacityUnits: 3,
        MaximumCapacityUnits: 3 + spec.task,
        MaximumCoreCapacityUnits: 3,
      });
    }
  });
});

describe('the EMR markets the service swaps for an on-demand twin', () => {
  const model = emrClusterModel({ nodeTypes, costModel });
  const spaceOf = (transient: boolean) => {
    const current = choiceOfShape(
      groupsShape({ type: 'c5.xlarge', core: 2, task: 22, taskSpot: true }),
      { transient, rootVolumeGb: null },
      nodeTypes,
    );
    const settings: ProjectSettings = { ...defaultProjectSettings(), spotPolicy: 'spot-allowed' };
    return buildEmrCandidateSpace(nodeTypes, costModel, {
      region: 'us-east-1',
      settings,
      current,
      observed: [current],
    });
  };

  it('has none on a long-running instance group: a running group keeps its market, so its spot task group needs no margin', () => {
    const space = spaceOf(false);
    expect(space.entries.some((entry) => entry.shape.taskMarket === 'spot' && entry.shape.task > 0)).toBe(
      true,
    );
    expect(marketSwapsOf(model, space).twins).toEqual({});
  });

  it('has one per spot task shape of a transient cluster, its on-demand twin', () => {
    const space = spaceOf(true);
    const { twins } = marketSwapsOf(model, space);
    const spotIds = space.entries
      .filter((entry) => entry.allowed && entry.shape.taskMarket === 'spot' && entry.shape.task > 0)
      .map((entry) => entry.candidate.id);
    expect(spotIds.length).toBeGreaterThan(0);
    for (const id of spotIds) {
      const twin = space.byId.get(twins[id] ?? '');
      expect(twin?.shape.taskMarket).toBe('on-demand');
      expect(twin?.candidate.nodes).toBe(space.byId.get(id)?.candidate.nodes);
    }
  });
});
