import { defaultProjectSettings, type ProjectSettings } from '@setpoint/api-contract';
import { describe, expect, it } from 'vitest';
import { computeCost } from '../../../../../../tests/support/run-costs.js';
import { createCostModel } from '../../../cost/cost-model.js';
import type { ModelProfile } from '../../../eventlog/model-profile.js';
import { type FleetPrior, learnFleetPrior } from '../../../optimizer/fleet-prior.js';
import { shippedFleet } from '../../../optimizer/shipped-fleet/shipped-fleet.js';
import { shippedCatalog } from '../../../pricing/catalog/shipped-catalog.js';
import { createPriceCatalog } from '../../../pricing/price-catalog.js';
import { learningText, slaText } from '../../../service/recommender/decision.js';
import { FleetPriorSource } from '../../../service/recommender/fleet-prior-source.js';
import { recommendationIsLearning } from '../../../service/recommender/learning.js';
import {
  type OptimizerPassInput,
  type OptimizerPassResult,
  runOptimizerPass,
} from '../../../service/recommender/optimizer-pass.js';
import {
  OptimizerPassWorkers,
  runOptimizerPassOffThread,
} from '../../../service/recommender/optimizer-pass-off-thread.js';
import { defaultRebaseSettings, segmentSinceRebase } from '../../../service/recommender/rebase.js';
import type {
  RecommendationDecision,
  RecommendationInput,
} from '../../../service/recommender/recommender.js';
import type { RecommenderRun } from '../../../service/recommender/recommender-run.js';
import { runtimeFloorSeconds, runtimeSecondsOf } from '../../../service/recommender/run-evidence.js';
import { clusterPolicySchema } from '../api/schema.js';
import { buildCandidateSpace } from '../cluster-shape/candidates.js';
import { shapeId as choiceId, type DatabricksClusterShape } from '../cluster-shape/cluster-shape.js';
import { costSpecOf } from '../cluster-shape/cost-spec.js';
import { photonRuntimeRefusal } from '../cluster-shape/photon-trial.js';
import { databricksClusterModel } from './databricks-cluster-model.js';
import { DatabricksRecommender as OptimizerRecommender } from './databricks-recommender.js';

type ClusterChoice = DatabricksClusterShape;
const clusterSpecOf = (shape: DatabricksClusterShape, region: string, plan: 'premium') =>
  costSpecOf(shape, { region, plan, compute: 'jobs' });

const catalog = createPriceCatalog([shippedCatalog]);
const costModel = createCostModel(catalog);
const nodeTypes = shippedCatalog.instanceTypes;
const vcpusOf = (type: string) => nodeTypes.find((entry) => entry.instanceType === type)?.vcpus ?? 4;
const memoryOf = (type: string) => nodeTypes.find((entry) => entry.instanceType === type)?.memoryGib ?? 16;
const model = databricksClusterModel({ catalog, nodeTypes, costModel });
/** The shape of a run's cluster, as the recommender parses it (the run's workspace is on AWS). */
const choiceOfRun = (entry: RecommenderRun, _cloud: 'aws', _settings: ProjectSettings) =>
  model.shapeOfRun(entry, null);

/** A CPU-bound job: 90 s of driver time plus 400 core-minutes spread over the workers' cores. */
function jobRuntimeS(type: string, workers: number): number {
  return 90 + (400 * 60) / (workers * vcpusOf(type));
}

interface RunOptions {
  type?: string;
  workers?: number;
  autoscale?: boolean;
  availability?: string;
  photon?: boolean;
  runtimeS?: number;
  failed?: boolean;
  inputBytes?: number;
  stageNames?: string[];
  peakBytesPerTask?: number;
  spillBytes?: number;
  criticalPathShare?: number;
  /** Shares of task time in GC and in shuffle fetch wait, and executor CPU time over core-seconds. */
  gcShare?: number;
  fetchWaitShare?: number;
  coreTimeOnCpu?: number;
  /** Each stage's executor CPU time over its task time (absent: stages carry no CPU time). */
  stageCpuShare?: number;
}

/** A run with the profile fields the recommender reads, its what-if table from the same job model. */
function run(index: number, options: RunOptions = {}): RecommenderRun {
  const type = options.type ?? 'm5.xlarge';
  const workers = options.workers ?? 8;
  const runtimeS = options.runtimeS ?? jobRuntimeS(type, workers);
  const inputBytes = options.inputBytes ?? 100 * 2 ** 30;
  const names = options.stageNames ?? ['scan', 'aggregate'];
  const tasksPerStage = 200;
  const peak = options.peakBytesPerTask ?? 2 ** 28;
  const choice: ClusterChoice = {
    cloud: 'aws',
    workerNodeType: type,
    driverNodeType: 'm5.xlarge',
    workers,
    autoscale: null,
    market: 'on-demand',
    firstOnDemand: 0,
    photon: options.photon ?? false,
  };
  const usdPerHour = costModel.rateCluster(clusterSpecOf(choice, 'us-east-1', 'premium')).usdPerHour(workers);
  const whatIfCounts = [0.25, 0.5, 1, 2, 4].map((factor) => Math.max(1, Math.round(workers * factor)));
  const profile = {
    application: { durationMs: runtimeS * 1000, exitCode: null },
    analysis: {
      wallTimeMs: runtimeS * 1000,
      driverTimeMs: 0,
      criticalPathMs: runtimeS * 1000 * (options.criticalPathShare ?? 0.05),
      coreHoursAvailable: (workers * vcpusOf(type) * runtimeS) / 3600,
    },
    executors: { maxConcurrent: workers, coresPerExecutor: vcpusOf(type) },
    stageCount: names.length,
    stages: names.map((name, stageId) => ({
      stageId,
      name,
      numTasks: tasksPerStage,
      tasks: tasksPerStage,
      executorRunTimeMs: (stageId + 1) * 1_000_000,
      ...(options.stageCpuShare === undefined
        ? {}
        : { executorCpuTimeMs: options.stageCpuShare * (stageId + 1) * 1_000_000 }),
      peakExecutionMemoryBytes: peak * tasksPerStage,
    })),
    totals: {
      tasks: tasksPerStage * names.length,
      failedJobs: options.failed ? 1 : 0,
      inputBytes,
      executorRunTimeMs: 3_000_000,
      executorCpuTimeMs: (options.coreTimeOnCpu ?? 0.5) * workers * vcpusOf(type) * runtimeS * 1000,
      jvmGcTimeMs: 3_000_000 * (options.gcShare ?? 0.02),
      shuffleFetchWaitTimeMs: 3_000_000 * (options.fetchWaitShare ?? 0.01),
      memoryBytesSpilled: options.spillBytes ?? 0,
      diskBytesSpilled: options.spillBytes ?? 0,
    },
    whatIf: [...new Set(whatIfCounts)].map((executors) => ({
      executors,
      estimatedDurationMs: jobRuntimeS(type, executors) * 1000,
      estimatedUtilization: 0.8,
      observed: executors === workers,
    })),
  } as unknown as ModelProfile;
  return {
    id: `run_${index}`,
    externalRunId: `ext-${index}`,
    status: options.failed ? 'FAILED' : 'SUCCESS',
    startedAt: index * 86_400_000,
    endedAt: index * 86_400_000 + runtimeS * 1000,
    cluster: {
      source: 'cluster_report',
      cloud: 'aws',
      region: 'us-east-1',
      nodeTypeId: type,
      driverNodeTypeId: 'm5.xlarge',
      workers: options.autoscale ? null : workers,
      autoscale: options.autoscale ? { minWorkers: 2, maxWorkers: workers } : null,
      photon: options.photon ?? false,
      availability: options.availability ?? 'ON_DEMAND',
      sparkVersion: '14.3.x-scala2.12',
    },
    clusterConfig: null,
    profile,
    cost: computeCost((usdPerHour.expected * runtimeS) / 3600),
    inputBytes,
    recommendationId: null,
  };
}

function input(runs: RecommenderRun[], settings: Partial<ProjectSettings> = {}): RecommendationInput {
  return {
    project: {
      id: 'prj_1',
      name: 'etl',
      phase: 'LEARNING',
      settings: { ...defaultProjectSettings(), preference: 'economy', ...settings },
      workspace: {
        id: 'ws',
        platform: 'databricks',
        cloud: 'aws',
        region: 'us-east-1',
        planType: 'premium',
        computeType: 'jobs',
      },
    },
    basedOnRunId: runs.at(-1)?.id ?? '',
    runs,
    recommendations: [],
  };
}

// The uninformed prior keeps these unit tests fast; the shipped fleet prior is the service's default.
const recommender = new OptimizerRecommender({ catalog, nodeTypes, prior: null });
/** The same with a learning phase of 3 runs, for tests of what comes after learning. */
const shortLearning = new OptimizerRecommender({
  catalog,
  nodeTypes,
  prior: null,
  optimizer: { learningRuns: 3 },
});

function totalMemoryGib(configuration: Record<string, unknown>): number {
  const workers =
    (configuration.num_workers as number | undefined) ??
    (configuration.autoscale as { max_workers: number }).max_workers;
  return workers * memoryOf(configuration.node_type_id as string);
}

describe('OptimizerRecommender', () => {
  it('returns a new_cluster fragment with phase, ordered ranges and a numeric explanation', async () => {
    const output = await recommender.recommend(input([run(1)]));

    expect(output.phase).toBe('LEARNING');
    expect(output.configuration.node_type_id).toMatch(/^[mcr]5\./);
    expect(typeof output.configuration.num_workers).toBe('number');
    const { runtimeMinutes, costUsd } = output.prediction;
    expect(runtimeMinutes.low).toBeLessThanOrEqual(runtimeMinutes.mid);
    expect(runtimeMinutes.mid).toBeLessThanOrEqual(runtimeMinutes.high);
    expect(costUsd!.low).toBeLessThanOrEqual(costUsd!.mid);
    expect(costUsd!.mid).toBeLessThanOrEqual(costUsd!.high);
    expect(output.explanation).toMatch(
      /^Learning run 1 of at most 8: no SLA set; safe learning: every learning run is held to a probability of 0\.90/,
    );
    expect(output.explanation).toMatch(/stage 1 holds 67% of task time/);
    expect(output.explanation).toMatch(/predicted \d+\.\d min \(\d+\.\d–\d+\.\d\) at \$\d+\.\d\d/);
  });

  it('uses the what-if replay: a CPU-bound job on one run is predicted to scale with workers', () => {
    const output = recommender.recommendNow(input([run(1, { workers: 4 })], { preference: 'performance' }));
    const workers = output.configuration.num_workers as number;
    const type = output.configuration.node_type_id as string;

    // Performance within the current cost: more cores finish sooner for the same money on this job.
    expect(workers * vcpusOf(type)).toBeGreaterThan(4 * 4);
    const actual = jobRuntimeS(type, workers) / 60;
    expect(Math.abs(output.prediction.runtimeMinutes.mid - actual) / actual).toBeLessThan(0.25);
  });

  it('honours minWorkers, maxWorkers and the allowed instance types', () => {
    const settings = { minWorkers: 3, maxWorkers: 6, allowedInstanceTypes: ['r5.xlarge', 'r5.2xlarge'] };
    let runs = [run(1)];
    for (let i = 2; i <= 6; i++) {
      const output = recommender.recommendNow(input(runs, settings));
      expect(settings.allowedInstanceTypes).toContain(output.configuration.node_type_id);
      expect(output.configuration.num_workers).toBeGreaterThanOrEqual(3);
      expect(output.configuration.num_workers).toBeLessThanOrEqual(6);
      runs = [
        ...runs,
        run(i, {
          type: output.configuration.node_type_id as string,
          workers: output.configuration.num_workers as number,
        }),
      ];
    }
  });

  it('keeps an autoscaling job autoscaling when maintainScalingType is set, and may fix it otherwise', () => {
    const runs = [run(1, { autoscale: true })];
    const kept = recommender.recommendNow(input(runs, { maintainScalingType: true }));
    expect(kept.configuration.autoscale).toBeDefined();
    expect(kept.configuration.num_workers).toBeUndefined();
    const autoscale = kept.configuration.autoscale as { min_workers: number; max_workers: number };
    expect(autoscale.max_workers).toBeGreaterThan(autoscale.min_workers);

    const free = recommender.recommendNow(input(runs, { maintainScalingType: false }));
    expect(free.configuration.autoscale).toBeUndefined();
    expect(typeof free.configuration.num_workers).toBe('number');
  });

  it('never recommends an autoscale range Databricks refuses (max_workers = min_workers), and names the rule', () => {
    // a small autoscaling job whose learning may go down to one worker: 1–1 is not a range Databricks takes
    const runs = [run(1, { autoscale: true, workers: 2 }), run(2, { autoscale: true, workers: 4 })];
    for (const preference of ['economy', 'balanced', 'performance'] as const) {
      const output = recommender.recommendNow(
        input(runs, { maintainScalingType: true, minWorkers: 1, maxWorkers: 8, preference }),
      );
      const autoscale = output.configuration.autoscale as { min_workers: number; max_workers: number };
      expect(autoscale.max_workers).toBeGreaterThan(autoscale.min_workers);
      const bounds = output.decision?.filtered.find((outcome) => outcome.filter === 'autoscale-bounds');
      expect(bounds?.dropped).toBeGreaterThan(0);
      expect(bounds?.example).toMatch(
        /^1–1 × \S+ \(autoscaling\).*max_workers \(1\) must be strictly greater than min_workers \(1\)/,
      );
      expect(output.explanation).toMatch(/autoscale-bounds removed \d+/);
    }
  });

  it('never goes below the memory of a configuration that failed, nor below the observed peak memory', () => {
    const failed = run(2, { type: 'c5.xlarge', workers: 2, failed: true, runtimeS: 600 });
    const output = recommender.recommendNow(input([run(1, { workers: 4 }), failed]));
    expect(totalMemoryGib(output.configuration)).toBeGreaterThan(2 * 8);

    // 200 tasks × 1 GiB at once on 32 slots → 32 GiB in use, 64 GiB of node memory needed.
    const hungry = run(1, { workers: 8, peakBytesPerTask: 2 ** 30 });
    const safe = recommender.recommendNow(input([hungry]));
    expect(totalMemoryGib(safe.configuration)).toBeGreaterThanOrEqual(64 * 1.1);
  });

  it('does not try less memory per core than a run that spilled had', () => {
    const spilled = run(1, { type: 'm5.xlarge', workers: 8, spillBytes: 50 * 2 ** 30 });
    for (const preference of ['economy', 'performance'] as const) {
      const output = recommender.recommendNow(input([spilled], { preference }));
      const type = output.configuration.node_type_id as string;
      expect(memoryOf(type) / vcpusOf(type)).toBeGreaterThanOrEqual(4);
    }
  });

  it("lists the based-on run's signals and leaves out less memory per core after a run with high GC", () => {
    const pressed = run(1, { type: 'm5.xlarge', workers: 8, gcShare: 0.25, coreTimeOnCpu: 0.12 });
    const output = recommender.recommendNow(input([pressed], { preference: 'performance' }));
    const type = output.configuration.node_type_id as string;
    expect(memoryOf(type) / vcpusOf(type)).toBeGreaterThanOrEqual(4);
    const gc = output.decision?.filtered.find((outcome) => outcome.filter === 'gc-memory');
    expect(gc?.dropped).toBeGreaterThan(0);
    // the example names the cluster in the card's words, not the optimizer's candidate id
    expect(gc?.example).toMatch(
      /^\d+ × [a-z0-9]+\.\w+(?: with [^)]*\))?, [a-z -]+ has less memory per core than a run whose tasks spent 10% or more of their time in GC/,
    );
    expect(gc?.example).not.toContain('|');
    // the run as a person knows it (when it started), its id left to the API
    const signals = output.decision?.notes.find((note) =>
      note.startsWith('signals of the run of 1970-01-02 00:00 UTC:'),
    );
    expect(signals).toMatch(/core time on CPU 12% \(low: fewer or smaller cores are plausible\)/);
    expect(signals).toMatch(/GC 25% of task time \(high: less memory per core is left out\)/);
    expect(signals).toMatch(
      /no spill; .*shuffle fetch wait 1% of task time; peak execution memory \d+\.\d GiB/,
    );
    expect(output.explanation).toContain(`S${signals?.slice(1)}.`);
    expect(output.explanation).toContain('The run of 1970-01-02 00:00 UTC took');
    expect(output.explanation).not.toMatch(/ext-1|run_1|\(s\)/);

    const calm = recommender.recommendNow(input([run(1, { type: 'm5.xlarge', workers: 8 })]));
    expect(calm.decision?.filtered.find((outcome) => outcome.filter === 'gc-memory')).toBeUndefined();
  });

  it('does not spread a network-bound run over more, smaller nodes', () => {
    const bound = run(1, { type: 'm5.2xlarge', workers: 4, fetchWaitShare: 0.35 });
    const output = recommender.recommendNow(input([bound], { preference: 'performance' }));
    const outcome = output.decision?.filtered.find((entry) => entry.filter === 'network-bound');
    expect(outcome?.dropped).toBeGreaterThan(0);
    expect(outcome?.example).toMatch(/network-bound run \(shuffle fetch wait ≥ 20% of task time\)/);
    const workers = output.configuration.num_workers as number;
    const type = output.configuration.node_type_id as string;
    expect(workers <= 4 || vcpusOf(type) >= 8).toBe(true);
    expect(output.explanation).toMatch(/shuffle fetch wait 35% of task time \(network-bound/);
  });

  it('proposes one Photon trial when no standard configuration can meet the SLA, and none on an old runtime', () => {
    const slow = run(1, { type: 'm5.xlarge', workers: 8 });
    const runtimeMin = jobRuntimeS('m5.xlarge', 8) / 60;
    const only = {
      allowedInstanceTypes: ['m5.xlarge'],
      minWorkers: 8,
      maxWorkers: 8,
      spotPolicy: 'on-demand-only' as const,
      photonAllowed: true,
      slaMinutes: runtimeMin * 0.8,
    };
    const trial = recommender.recommendNow(input([slow], only));
    expect(trial.configuration.runtime_engine).toBe('PHOTON');
    expect(trial.phase).toBe('LEARNING');
    expect(trial.decision?.trial).toEqual({
      engine: 'Photon',
      reason: 'sla',
      speedup: { low: 1, mid: 1.5, high: 2.5 },
    });
    expect(trial.decision?.sla).toMatchObject({ kind: 'project', feasible: false });
    expect(trial.explanation).toMatch(
      /^Learning run \d of at most 8 \(a Photon trial\): (it may miss the SLA: )?P\(runtime ≤ SLA\)/,
    );
    expect(trial.explanation).toMatch(/SLA infeasible without Photon; trying Photon to learn its speed-up/);
    expect(trial.explanation).toContain(`at $${trial.prediction.costUsd!.mid.toFixed(2)}`);
    // the trial's rate is Photon's: more per hour than the same cluster on the standard engine
    const standardRate = slow.cost.totalUsd / jobRuntimeS('m5.xlarge', 8);
    expect(trial.prediction.costUsd!.mid / (trial.prediction.runtimeMinutes.mid * 60)).toBeGreaterThan(
      standardRate,
    );

    // With the SLA within reach of the standard engine there is no trial.
    const loose = recommender.recommendNow(input([slow], { ...only, slaMinutes: runtimeMin * 2 }));
    expect(loose.configuration.runtime_engine).toBe('STANDARD');
    expect(loose.decision?.trial).toBeUndefined();

    // Photon off in the settings: no trial, the infeasible SLA is stated instead.
    const off = recommender.recommendNow(input([slow], { ...only, photonAllowed: false }));
    expect(off.configuration.runtime_engine).toBe('STANDARD');
    expect(off.explanation).toMatch(/SLA infeasible: fastest predicted/);

    // Once a Photon run exists, Photon is evidence: no second trial.
    const photonRun = run(2, {
      type: 'm5.xlarge',
      workers: 8,
      photon: true,
      runtimeS: jobRuntimeS('m5.xlarge', 8) * 0.95,
    });
    const after = recommender.recommendNow(input([slow, photonRun], only));
    expect(after.decision?.trial).toBeUndefined();
    expect(after.decision?.filtered.find((outcome) => outcome.filter === 'photon-evidence')).toBeUndefined();
  });

  it('tries Photon for what it may save during learning, only on a job whose run says Photon would pay', () => {
    const settings = { spotPolicy: 'on-demand-only' as const, photonAllowed: true };
    // 95% of task time is CPU work in the engine: Photon is expected to pay on any cluster
    const sql = run(1, { type: 'm5.xlarge', workers: 8, stageCpuShare: 0.95 });
    const trial = recommender.recommendNow(input([sql], settings));
    const decision = trial.decision;
    if (!decision?.trial) throw new Error('no Photon trial');
    expect(trial.configuration.runtime_engine).toBe('PHOTON');
    expect(trial.phase).toBe('LEARNING');
    expect(decision.trial).toMatchObject({ engine: 'Photon', reason: 'savings' });
    expect(decision.trial.speedup.mid).toBeGreaterThan(2);
    expect(decision.learning?.active).toBe(true);
    expect(learningText(decision)).toMatch(/^learning run 1 of at most 8 \(a Photon trial\)/);
    expect(trial.explanation).toMatch(
      /Trying Photon for what it may save: with this run's task metrics: 95% of executor task time is CPU work Photon runs/,
    );
    expect(trial.explanation).toMatch(
      /Photon's DBU rate included\) against \$\S+ for \d+ × m5\.\S+, on-demand,/,
    );
    expect(trial.explanation).not.toMatch(/SLA infeasible/);
    // predicted at Photon's rate, and for less than the same cluster costs on the standard engine
    const photonRate = trial.prediction.costUsd!.mid / (trial.prediction.runtimeMinutes.mid * 60);
    const workers = trial.configuration.num_workers as number;
    const type = trial.configuration.node_type_id as string;
    const standardRate = costModel
      .rateCluster(
        clusterSpecOf(
          { ...choiceOfRun(sql, 'aws', defaultProjectSettings()), workerNodeType: type, workers },
          'us-east-1',
          'premium',
        ),
      )
      .usdPerHour(workers).expected;
    expect(photonRate * 3600).toBeGreaterThan(standardRate);
    expect(trial.prediction.costUsd!.mid).toBeLessThan(
      (standardRate / 3600) * jobRuntimeS(type, workers) * 0.9,
    );

    // With an SLA it holds the learning run's P(runtime ≤ SLA) and says nothing of infeasibility.
    const slaMinutes = (jobRuntimeS('m5.xlarge', 8) * 1.5) / 60;
    const withSla = recommender.recommendNow(input([sql], { ...settings, slaMinutes }));
    expect(withSla.decision?.trial?.reason).toBe('savings');
    expect(withSla.decision?.sla).toMatchObject({ kind: 'project', feasible: true });
    expect(slaText(withSla.decision!)).toMatch(/^P\(runtime ≤ SLA \d+\.\d min\) = 0\.9\d on a Photon trial/);

    // Half the task time CPU work: Photon is expected to cost a little less than the same cluster, but not
    // the 10% a bet on an engine the job never ran needs; at 60% it is.
    const half = (stageCpuShare: number) =>
      recommender.recommendNow(input([run(1, { type: 'm5.xlarge', workers: 8, stageCpuShare })], settings));
    expect(half(0.5).decision?.trial).toBeUndefined();
    expect(half(0.6).decision?.trial?.reason).toBe('savings');

    // Mostly waiting on storage: Photon would not pay, so no trial.
    const scan = recommender.recommendNow(
      input([run(1, { type: 'm5.xlarge', workers: 8, stageCpuShare: 0.15 })], settings),
    );
    expect(scan.decision?.trial).toBeUndefined();
    expect(scan.configuration.runtime_engine).toBe('STANDARD');
    // No task metrics: the generic prior says nothing of this job, so no trial either.
    expect(recommender.recommendNow(input([run(1)], settings)).decision?.trial).toBeUndefined();
    // After learning, no trial.
    let runs = [sql];
    let output = trial;
    for (let i = 2; output.phase === 'LEARNING' || output.decision?.learning?.active; i++) {
      runs = [...runs, run(i, { type: 'm5.xlarge', workers: 8, stageCpuShare: 0.95 })];
      output = recommender.recommendNow(input(runs, { ...settings, photonAllowed: true }));
      if (i > 12) throw new Error('learning never ended');
    }
    expect(output.decision?.trial).toBeUndefined();
  });

  it('keeps no Photon trial aside on a runtime that cannot run Photon', () => {
    const current = choiceOfRun(run(1), 'aws', defaultProjectSettings());
    const context = {
      cloud: 'aws' as const,
      region: 'us-east-1',
      plan: 'premium' as const,
      current,
      observed: [current],
      settings: { ...defaultProjectSettings(), photonAllowed: true },
    };
    expect(
      buildCandidateSpace(catalog, nodeTypes, { ...context, sparkVersion: '14.3.x-scala2.12' }).trials
        ?.engine,
    ).toBe('Photon');
    expect(
      buildCandidateSpace(catalog, nodeTypes, { ...context, sparkVersion: '8.4.x-scala2.12' }).trials,
    ).toBeUndefined();
    expect(photonRuntimeRefusal('7.3.x-scala2.12')).toMatch(/Databricks Runtime 7\.3 cannot run Photon/);
    expect(photonRuntimeRefusal('9.1.x-scala2.12')).toBeNull();
    expect(photonRuntimeRefusal('custom-image')).toBeNull();
  });

  it('never predicts a run shorter than the critical path allows', () => {
    // The what-if says more workers help; the critical path says nothing can finish below 40% of the run.
    const chained = run(1, { workers: 4, criticalPathShare: 1 });
    const output = recommender.recommendNow(input([chained], { preference: 'performance' }));
    const floorMinutes = (runtimeFloorSeconds(chained.profile) / 60) * 0.999;
    expect(runtimeFloorSeconds(chained.profile)).toBeCloseTo(jobRuntimeS('m5.xlarge', 4) * 0.4, 6);
    expect(output.prediction.runtimeMinutes.mid).toBeGreaterThanOrEqual(floorMinutes);
  });

  it('says in every explanation that the driver and first_on_demand stay as the job runs them', async () => {
    const onDemand = await recommender.recommend(input([run(1)]));
    expect(onDemand.explanation).toMatch(
      / Kept as the job runs them: the driver m5\.xlarge and the driver on-demand \(first_on_demand\) when a spot market is chosen\.$/,
    );
    const spot = {
      ...run(1, { availability: 'SPOT_WITH_FALLBACK' }),
      clusterConfig: {
        node_type_id: 'm5.xlarge',
        driver_node_type_id: 'r5.2xlarge',
        num_workers: 8,
        aws_attributes: { availability: 'SPOT_WITH_FALLBACK', first_on_demand: 2 },
      },
    };
    const output = await recommender.recommend(input([spot], { spotPolicy: 'spot-allowed' }));
    expect(output.explanation).toMatch(
      / Kept as the job runs them: the driver r5\.2xlarge and first_on_demand 2\.$/,
    );
    // and the configuration written changes neither
    const attributes = output.configuration.aws_attributes as Record<string, unknown> | undefined;
    expect(attributes?.first_on_demand ?? 2).toBe(2);
    expect(output.configuration.driver_node_type_id ?? 'r5.2xlarge').toBe('r5.2xlarge');
  });

  it('follows the spot policy and keeps the driver on-demand when asked', () => {
    const onDemand = recommender.recommendNow(input([run(1)], { spotPolicy: 'on-demand-only' }));
    expect(onDemand.configuration.aws_attributes).toMatchObject({ availability: 'ON_DEMAND' });

    const spot = recommender.recommendNow(
      input([run(1)], { spotPolicy: 'spot-with-fallback', forceOnDemandDriver: true }),
    );
    // With no SLA, spot's lower expected price wins.
    expect(spot.configuration.aws_attributes).toMatchObject({
      availability: 'SPOT_WITH_FALLBACK',
      first_on_demand: 1,
    });
  });

  it('offers Photon only where it is allowed and runs on both engines exist', () => {
    const current = choiceOfRun(run(1), 'aws', defaultProjectSettings());
    const photonRun = choiceOfRun(run(2, { photon: true }), 'aws', defaultProjectSettings());
    const context = { cloud: 'aws' as const, region: 'us-east-1', plan: 'premium' as const, current };
    const allowed = buildCandidateSpace(catalog, nodeTypes, {
      ...context,
      settings: { ...defaultProjectSettings(), photonAllowed: true },
      observed: [photonRun, current],
    });
    const unseen = buildCandidateSpace(catalog, nodeTypes, {
      ...context,
      settings: { ...defaultProjectSettings(), photonAllowed: true },
      observed: [current],
    });
    expect(unseen.entries.some((entry) => entry.shape.photon && entry.allowed)).toBe(false);
    expect(unseen.filtered.find((outcome) => outcome.filter === 'photon-evidence')?.example).toMatch(
      /no run of this job on the Photon engine/,
    );
    const forbidden = buildCandidateSpace(catalog, nodeTypes, {
      ...context,
      settings: { ...defaultProjectSettings(), photonAllowed: false },
      observed: [current],
    });
    expect(allowed.entries.some((entry) => entry.shape.photon && entry.allowed)).toBe(true);
    expect(forbidden.entries.some((entry) => entry.shape.photon)).toBe(false);
    const output = recommender.recommendNow(input([run(1)], { photonAllowed: false }));
    expect(output.configuration.runtime_engine).toBe('STANDARD');
  });

  it('reaches OPTIMIZING after its learning runs and reports the iteration', () => {
    // Under a miss budget the learning phase runs its course (safe learning may end it sooner: no probe
    // cheaper than the best known configuration).
    let runs = [run(1)];
    const phases: string[] = [];
    for (let i = 2; i <= 6; i++) {
      const output = shortLearning.recommendNow(
        input(runs, { spotPolicy: 'on-demand-only', learningMissBudget: 3 }),
      );
      phases.push(output.phase);
      runs = [
        ...runs,
        run(i, {
          type: output.configuration.node_type_id as string,
          workers: output.configuration.num_workers as number,
        }),
      ];
    }
    expect(phases.slice(0, 3)).toEqual(['LEARNING', 'LEARNING', 'LEARNING']);
    for (const phase of phases.slice(3)) expect(['OPTIMIZING', 'MONITORING']).toContain(phase);
  });

  it('after learning explores only what is not expected to cost more than now, and says so', () => {
    // A cold start on many small nodes: after learning, an untried configuration is still worth a run.
    // Under a miss budget (safe learning explores nothing dearer than the best known configuration).
    let runs = [run(1, { type: 'c5.xlarge', workers: 32 })];
    const slaMinutes = (jobRuntimeS('c5.xlarge', 32) * 1.5) / 60;
    let explored = 0;
    // the explore rule's cost bound, apart from the overrun bound (which, with one run, rules most out)
    const exploring = new OptimizerRecommender({
      catalog,
      nodeTypes,
      prior: null,
      optimizer: { learningRuns: 3, maxOverrun: Number.POSITIVE_INFINITY },
    });
    for (let i = 2; i <= 12; i++) {
      const output = exploring.recommendNow(
        input(runs, { spotPolicy: 'on-demand-only', slaMinutes, learningMissBudget: 3 }),
      );
      const decision = output.decision!;
      const type = output.configuration.node_type_id as string;
      const workers = output.configuration.num_workers as number;
      const configuration = `${workers} × ${type}`;
      const ranBefore = runs.some(
        (entry) => `${entry.cluster.workers} × ${entry.cluster.nodeTypeId}` === configuration,
      );
      const cheapestRunUsd = Math.min(...runs.map((entry) => entry.cost.totalUsd));
      const last = runs.at(-1)!;
      const onCurrent = runs.filter(
        (entry) =>
          entry.cluster.workers === last.cluster.workers &&
          entry.cluster.nodeTypeId === last.cluster.nodeTypeId,
      );
      const currentMetSla = onCurrent.every((entry) => runtimeSecondsOf(entry.profile) <= slaMinutes * 60);
      const currentCostUsd =
        onCurrent.reduce((sum, entry) => sum + entry.cost.totalUsd, 0) / onCurrent.length;
      if (decision.learning?.exploration) {
        explored += 1;
        expect(decision.action).toBe('change');
        expect(decision.learning.active).toBe(false);
        expect(ranBefore).toBe(false);
        const text = learningText(decision)!;
        expect(text).toMatch(
          /exploring a configuration not run yet: it may cost less than the cheapest configuration that met the SLA so far/,
        );
        expect(output.explanation.startsWith(`${text.charAt(0).toUpperCase()}${text.slice(1)}.`)).toBe(true);
        const { expectedCostUsd, bestKnownCostUsd } = decision.learning.exploration;
        // Never expected to cost more than now (than the best so far when the current cluster missed).
        expect(expectedCostUsd).toBeLessThanOrEqual(currentMetSla ? currentCostUsd : bestKnownCostUsd);
        expect(text.includes('though its expected cost is')).toBe(expectedCostUsd > bestKnownCostUsd);
      } else if (decision.action === 'change' && !decision.learning?.active) {
        // Any other change after learning is the exploit rule's (expected to cost less than the cheapest
        // run) or the keep/move rule's (a keep below the confidence moves to a confident configuration).
        const confident = decision.sla.kind === 'project' && decision.sla.probabilityMeets >= 0.9;
        expect(output.prediction.costUsd!.mid < cheapestRunUsd * 1.02 || confident).toBe(true);
      }
      runs = [...runs, run(i, { type, workers })];
    }
    expect(explored).toBeGreaterThan(0);
  });

  it("takes the project's SLA-miss budget for learning runs, and the decision, card text and explanation agree", () => {
    const runs = [
      run(1),
      run(2, { type: 'r5.xlarge', workers: 4 }),
      run(3, { type: 'c5.xlarge', workers: 2 }),
    ];
    const slaMinutes = jobRuntimeS('m5.xlarge', 8) / 60;
    const missed = runs.slice(2).filter((entry) => runtimeSecondsOf(entry.profile) > slaMinutes * 60).length;
    expect(missed).toBe(1);
    const budgeted = recommender.recommendNow(input(runs, { slaMinutes, learningMissBudget: 2 }));
    expect(budgeted.decision?.learning).toMatchObject({ maxRuns: 8, missBudget: 2, missesSpent: 1 });
    const text = learningText(budgeted.decision!);
    expect(text).toMatch(/1 of 2 allowed SLA misses spent/);
    expect(budgeted.explanation.startsWith(`${text!.charAt(0).toUpperCase()}${text!.slice(1)}.`)).toBe(true);
    if (budgeted.decision?.learning?.active) {
      expect(budgeted.phase).toBe('LEARNING');
      const probability = (budgeted.decision.sla as { probabilityMeets: number }).probabilityMeets;
      expect(text).toContain(`P(runtime ≤ SLA) = ${probability.toFixed(2)}`);
    }
    // A budget of 1 is spent by that miss: learning is over, and the explanation says why.
    const spent = recommender.recommendNow(input(runs, { slaMinutes, learningMissBudget: 1 }));
    expect(spent.decision?.learning).toMatchObject({ active: false, missBudget: 1, missesSpent: 1 });
    expect(spent.phase).not.toBe('LEARNING');
    expect(spent.explanation).toMatch(
      /^Not a learning run: learning is over \(the SLA-miss budget is spent; 1 of 1/,
    );
    // 0: safe learning, no budget to spend; the text says what holds a learning run instead.
    const safe = recommender.recommendNow(input(runs, { slaMinutes, learningMissBudget: 0 }));
    expect(safe.decision?.learning).toMatchObject({ maxRuns: 8, missBudget: null, missesSpent: 1 });
    expect(learningText(safe.decision!)).toMatch(
      /safe learning: every learning run is held to P\(runtime ≤ SLA\) ≥ 0\.90/,
    );
  });
});

describe('the optimizer pass on a worker thread', () => {
  // a prior with fleet analogs, so the worker must revive the analogs' classes and post back a mixture
  const prior = learnFleetPrior(shippedFleet().slice(0, 8));
  const options = { catalog, nodeTypes, prior };
  const inProcess = new OptimizerRecommender(options);
  const offThread = new OptimizerRecommender({ ...options, optimizerPass: runOptimizerPassOffThread });

  it('recommends exactly what the in-process pass does on the same inputs', async () => {
    expect(prior.analogs.length).toBeGreaterThan(0);
    const histories = [
      [run(1)],
      [run(1, { workers: 4 }), run(2, { type: 'r5.xlarge', workers: 6 }), run(3, { type: 'c5.2xlarge' })],
      [run(1, { spillBytes: 2 ** 30 }), run(2, { workers: 12, runtimeS: 4000, failed: true })],
    ];
    for (const runs of histories) {
      for (const settings of [{}, { slaMinutes: 20 }, { preference: 'performance' as const }]) {
        const expected = inProcess.recommendNow(input(runs, settings));
        const actual = await offThread.recommend(input(runs, settings));
        expect(actual).toEqual(expected);
      }
    }
  });

  it("computes the engine trials' quantiles on the worker, and decides exactly as when the decision computes them", async () => {
    const slow = run(1, { type: 'm5.xlarge', workers: 8 });
    const sql = run(1, { type: 'm5.xlarge', workers: 8, stageCpuShare: 0.95 });
    const photon = { spotPolicy: 'on-demand-only' as const, photonAllowed: true };
    const cases: Array<{
      runs: RecommenderRun[];
      settings: Partial<ProjectSettings>;
      trial: 'sla' | 'savings' | null;
      /** Whether the decision looks for a trial (and the pass computes the trials' quantiles). */
      sought: boolean;
    }> = [
      // nothing on the standard engine meets the SLA: a trial for the SLA
      {
        runs: [slow],
        settings: {
          ...photon,
          allowedInstanceTypes: ['m5.xlarge'],
          minWorkers: 8,
          maxWorkers: 8,
          slaMinutes: (jobRuntimeS('m5.xlarge', 8) / 60) * 0.8,
        },
        trial: 'sla',
        sought: true,
      },
      // a run whose task metrics say Photon pays: a trial for savings, with and without an SLA
      { runs: [sql], settings: photon, trial: 'savings', sought: true },
      {
        runs: [sql],
        settings: { ...photon, slaMinutes: (jobRuntimeS('m5.xlarge', 8) * 1.5) / 60 },
        trial: 'savings',
        sought: true,
      },
      // looked for, but Photon would not pay on a run mostly waiting on storage
      {
        runs: [run(1, { type: 'm5.xlarge', workers: 8, stageCpuShare: 0.15 })],
        settings: photon,
        trial: null,
        sought: true,
      },
      // kept aside but not looked for: the SLA is within reach and the speed-up prior says nothing of the job
      { runs: [slow], settings: photon, trial: null, sought: false },
    ];
    const passes: OptimizerPassInput[] = [];
    const results: OptimizerPassResult[] = [];
    const recording = new OptimizerRecommender({
      ...options,
      optimizerPass: async (pass) => {
        passes.push(pass);
        const result = await runOptimizerPassOffThread(pass);
        results.push(result);
        return result;
      },
    });
    // the decision computing every trial's quantiles itself on the calling thread, as it did before
    const onCaller = new OptimizerRecommender({
      ...options,
      optimizerPass: async (pass) => ({ ...runOptimizerPass(pass), trialQuantiles: {} }),
    });
    for (const { runs, settings, trial, sought } of cases) {
      const expected = await onCaller.recommend(input(runs, settings));
      expect(expected.decision?.trial?.reason ?? null).toBe(trial);
      expect(await recording.recommend(input(runs, settings))).toEqual(expected);
      expect(inProcess.recommendNow(input(runs, settings))).toEqual(expected);
      const pass = passes.at(-1) as OptimizerPassInput;
      const quantiles = (results.at(-1) as OptimizerPassResult).trialQuantiles;
      expect(pass.engineTrials?.baselineIds.length).toBeGreaterThan(0);
      if (!sought) {
        expect(quantiles).toEqual({});
      } else {
        // every assessed baseline of an allowed trial
        const assessed = new Set(
          (results.at(-1) as OptimizerPassResult).assessment.assessments.map((entry) => entry.candidate.id),
        );
        const baselines = (pass.engineTrials?.baselineIds ?? []).filter((id) => assessed.has(id));
        expect(Object.keys(quantiles).sort()).toEqual([...new Set(baselines)].sort());
      }
    }
  });

  it('fits the model off the event loop when the prior comes from the fleet source (the service)', async () => {
    const service = new OptimizerRecommender({
      catalog,
      nodeTypes,
      priorSource: new FleetPriorSource({ learn: async () => prior }),
    });
    await service.recommend(input([run(1)])); // the source learns its prior once
    // an in-process pass resolves in the same turn of the event loop; a worker's answer comes in a later one
    let turned = false;
    setImmediate(() => {
      turned = true;
    });
    const output = await service.recommend(input([run(1)]));
    expect(turned).toBe(true);
    expect(output).toEqual(inProcess.recommendNow(input([run(1)]), prior));
  });

  // the time bound: 'keep a worker after a pass error, and replace one that ran out of time' below
  it("keeps the pass's errors visible", async () => {
    const pass = { prior, extraAnalogs: [], pool: [], settings: {}, floorS: 0, tried: [] };
    // no candidates: the optimizer cannot find the current configuration
    const request = { observations: [], currentCandidateId: 'missing' };
    const inProcessError = (() => {
      try {
        runOptimizerPass({ ...pass, request });
      } catch (error) {
        return error as Error;
      }
    })();
    expect(inProcessError).toBeInstanceOf(Error);
    await expect(runOptimizerPassOffThread({ ...pass, request })).rejects.toMatchObject({
      code: 'RECOMMENDATION_WORKER_FAILED',
      message: inProcessError?.message,
    });
  });
});

describe('the recommendation workers', () => {
  const prior = learnFleetPrior(shippedFleet().slice(0, 8));
  const histories = [
    [run(1)],
    [run(1, { workers: 4 }), run(2, { type: 'r5.xlarge', workers: 6 }), run(3, { type: 'c5.2xlarge' })],
  ];

  it('post the prior to a worker once and answer what the in-process pass does', async () => {
    const workers = new OptimizerPassWorkers();
    try {
      const passes: OptimizerPassInput[] = [];
      for (const runs of histories) {
        passes.push(...(await captured(runs, prior)));
      }
      expect(passes.some((pass) => pass.extraAnalogs.length > 0)).toBe(true);
      for (const pass of passes) expect(await workers.run(pass)).toEqual(runOptimizerPass(pass));
      expect(workers.stats).toEqual({ workersStarted: 1, priorsPosted: 1 });

      // a relearned prior is a new object: it is posted again
      const relearned = learnFleetPrior(shippedFleet().slice(0, 5));
      const [pass] = await captured(histories[0] as RecommenderRun[], relearned);
      expect(await workers.run(pass as OptimizerPassInput)).toEqual(
        runOptimizerPass(pass as OptimizerPassInput),
      );
      expect(workers.stats).toEqual({ workersStarted: 1, priorsPosted: 2 });
    } finally {
      await workers.close();
    }
  });

  it('keep a worker after a pass error, and replace one that ran out of time', async () => {
    const workers = new OptimizerPassWorkers();
    try {
      const [pass] = await captured(histories[0] as RecommenderRun[], prior);
      const good = pass as OptimizerPassInput;
      const broken = { ...good, pool: [], request: { observations: [], currentCandidateId: 'missing' } };
      await expect(workers.run(broken)).rejects.toMatchObject({ code: 'RECOMMENDATION_WORKER_FAILED' });
      expect(await workers.run(good)).toEqual(runOptimizerPass(good));
      expect(workers.stats.workersStarted).toBe(1);

      // a model fit on a prior with analogs, posted and answered, takes more than a millisecond anywhere
      await expect(workers.run(good, { timeoutMs: 1 })).rejects.toMatchObject({
        code: 'RECOMMENDATION_TIMEOUT',
      });
      expect(await workers.run(good)).toEqual(runOptimizerPass(good));
      expect(workers.stats).toEqual({ workersStarted: 2, priorsPosted: 2 });
    } finally {
      await workers.close();
    }
  });

  /** The pass a recommendation on `runs` hands to the optimizer. */
  async function captured(runs: RecommenderRun[], fixedPrior: FleetPrior): Promise<OptimizerPassInput[]> {
    const passes: OptimizerPassInput[] = [];
    const capture = new OptimizerRecommender({
      catalog,
      nodeTypes,
      prior: fixedPrior,
      optimizerPass: async (pass) => {
        passes.push(pass);
        return runOptimizerPass(pass);
      },
    });
    await capture.recommend(input(runs, { slaMinutes: 30 }));
    return passes;
  }
});

describe('rebasing', () => {
  const settings = defaultProjectSettings();
  const segment = (runs: RecommenderRun[]) =>
    segmentSinceRebase(
      runs,
      runs.map((entry) => choiceId(choiceOfRun(entry, 'aws', settings))),
      defaultRebaseSettings,
    );

  it('starts over when the stage structure changes', () => {
    const runs = [run(1), run(2, { workers: 4 }), run(3, { stageNames: ['scan', 'join', 'aggregate'] })];
    expect(segment(runs)).toMatchObject({ start: 2, reason: expect.stringMatching(/stage structure/) });
    const output = recommender.recommendNow(input(runs));
    expect(output.phase).toBe('REBASING');
    // one account of the rebase: the decision records it as the first run of a new learning phase, and
    // the explanation opens with the decision's learning text, which says so once
    const learning = output.decision?.learning;
    expect(learning).toMatchObject({
      active: true,
      run: 1,
      missesSpent: 0,
      rebaseReason: expect.stringMatching(/^the stage structure changed/),
    });
    const text = learningText(output.decision as RecommendationDecision) ?? '';
    expect(text).toMatch(
      /^rebasing: the stage structure changed .*; earlier runs no longer describe the job, so learning starts over: learning run 1 of /,
    );
    expect(output.explanation.startsWith(`R${text.slice(1)}.`)).toBe(true);
    expect(output.explanation).not.toMatch(/not a learning run|learning is over/i);
    expect(output.explanation.match(/rebasing/gi)).toHaveLength(1);
    expect(recommendationIsLearning({ phase: output.phase, decision: output.decision })).toBe(true);
  });

  it('records no rebase when the job did not change', () => {
    const output = recommender.recommendNow(input([run(1), run(2)]));
    expect(output.phase).not.toBe('REBASING');
    expect(output.decision?.learning?.rebaseReason).toBeNull();
    expect(output.explanation).not.toMatch(/rebasing/i);
  });

  it('starts over when the input leaves the range seen, but not for gradual growth', () => {
    const jump = [run(1), run(2, { inputBytes: 400 * 2 ** 30 })];
    expect(segment(jump).start).toBe(1);
    const gradual = [1, 2, 3, 4, 5, 6].map((i) => run(i, { inputBytes: 100 * 2 ** 30 * 1.05 ** i }));
    expect(segment(gradual).start).toBe(0);
  });

  it('starts over when an unchanged configuration suddenly runs much longer', () => {
    const runs = [run(1), run(2), run(3, { runtimeS: jobRuntimeS('m5.xlarge', 8) * 1.6 })];
    expect(segment(runs)).toMatchObject({
      start: 2,
      reason: expect.stringMatching(/unchanged configuration/),
    });
    const steady = [run(1), run(2), run(3, { runtimeS: jobRuntimeS('m5.xlarge', 8) * 1.05 })];
    expect(segment(steady).start).toBe(0);
  });
});

describe('decisions', () => {
  it('never pays more to miss an SLA no configuration can meet, and says so', () => {
    // Half the runtime is one chain of stages: no cluster finishes in a third of the time.
    const runs = [run(1, { availability: 'SPOT_WITH_FALLBACK', criticalPathShare: 0.9 })];
    const slaMinutes = (jobRuntimeS('m5.xlarge', 8) * 0.3) / 60;
    const output = recommender.recommendNow(input(runs, { slaMinutes }));
    expect(output.decision?.sla).toMatchObject({ kind: 'project', feasible: false });
    expect(output.explanation).toMatch(/SLA infeasible: fastest predicted \d+\.\d min on/);
    expect(output.configuration.aws_attributes).toMatchObject({ availability: 'SPOT_WITH_FALLBACK' });
    expect(output.prediction.costUsd!.mid).toBeLessThanOrEqual(runs[0]!.cost.totalUsd * 1.05);
  });

  it('explains a project with no SLA without a runtime probability, and a keep as no change', () => {
    let runs = [run(1)];
    let output = recommender.recommendNow(input(runs));
    for (let i = 2; i <= 8; i++) {
      runs = [
        ...runs,
        run(i, {
          type: output.configuration.node_type_id as string,
          workers: output.configuration.num_workers as number,
        }),
      ];
      output = recommender.recommendNow(input(runs, { spotPolicy: 'on-demand-only' }));
    }
    expect(output.explanation).not.toMatch(/P\(runtime ≤/);
    expect(output.explanation).toMatch(/no SLA set: runtime kept within 10% of the best seen/);
    expect(output.decision?.sla.kind).toBe('none');
    if (output.decision?.action === 'keep') expect(output.explanation).toMatch(/^.*No change: keep/);
    else expect(output.decision?.change).toMatch(/ → /);
  });

  it('predicts what a configuration that ran three times cost', () => {
    // The runs cost 20% less than the catalog says (a discount the timeline shows): the prediction follows.
    const runs = [1, 2, 3].map((i) => {
      const entry = run(i);
      return { ...entry, cost: { ...entry.cost, totalUsd: entry.cost.totalUsd * 0.8 } };
    });
    const output = recommender.recommendNow(
      input(runs, {
        spotPolicy: 'on-demand-only',
        minWorkers: 8,
        maxWorkers: 8,
        allowedInstanceTypes: ['m5.xlarge'],
      }),
    );
    expect(output.decision?.action).toBe('keep');
    const observed = runs[0]!.cost.totalUsd;
    expect(Math.abs(output.prediction.costUsd!.mid - observed) / observed).toBeLessThan(0.05);
  });
});

describe('what the workspace imposes, read before recommending', () => {
  const policyRun = (): RecommenderRun => ({
    ...run(1),
    clusterConfig: {
      spark_version: '14.3.x-scala2.12',
      node_type_id: 'm5.xlarge',
      driver_node_type_id: 'm5.xlarge',
      num_workers: 8,
      policy_id: 'P1',
      aws_attributes: { availability: 'ON_DEMAND' },
    },
  });
  const teamPolicy = clusterPolicySchema.parse({
    policy_id: 'P1',
    name: 'team',
    definition: JSON.stringify({ num_workers: { type: 'range', maxValue: 8 } }),
  });

  it("reads the cluster's policy and the workspace's node types once, and filters the candidates by them", async () => {
    const asked: string[] = [];
    const reading = new OptimizerRecommender({
      catalog,
      nodeTypes,
      prior: null,
      policies: async (workspaceId, policyId) => {
        asked.push(`policy ${workspaceId} ${policyId}`);
        return teamPolicy;
      },
      launchableNodeTypes: async (workspaceId) => {
        asked.push(`node types ${workspaceId}`);
        return null;
      },
    });
    const output = await reading.recommend(input([policyRun()], { spotPolicy: 'on-demand-only' }));
    expect(asked).toEqual(['policy ws P1', 'node types ws']);
    const policy = output.decision?.filtered.find((outcome) => outcome.filter === 'policy num_workers range');
    expect(policy?.dropped).toBeGreaterThan(0);
    expect(Number(output.configuration.num_workers ?? 0)).toBeLessThanOrEqual(8);

    // the synchronous path reads nothing, so no policy applies there
    const now = reading.recommendNow(input([policyRun()], { spotPolicy: 'on-demand-only' }));
    expect(asked).toHaveLength(2);
    expect(now.decision?.filtered.some((outcome) => outcome.filter === 'policy num_workers range')).toBe(
      false,
    );
  });
});
