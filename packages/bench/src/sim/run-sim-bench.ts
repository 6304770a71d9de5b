import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { defaultProjectSettings, type ProjectPhase } from '@setpoint/api-contract';
import type { NewClusterLike, NewClusterSettings, Workload } from '@setpoint/databricks-emulator';
import { ValidationError } from '@setpoint/foundation/errors';
import { quantile, rounded } from '@setpoint/foundation/statistics';
import {
  type AfterFirstRecommendation,
  afterFirstRecommendation,
  type LoopEpisode,
} from 'setpoint/demo/after-first-recommendation';
import { type EmulatorPackage, loadEmulator } from 'setpoint/demo/load-emulator';
import { analyzeEventLog } from 'setpoint/eventlog/index';
import { modelProfileOf } from 'setpoint/eventlog/model-profile';
import type { FleetPrior } from 'setpoint/optimizer/fleet-prior';
import { candidateRateUsdPerHour } from 'setpoint/optimizer/types';
import { buildCandidateSpace } from 'setpoint/platforms/databricks/cluster-shape/candidates';
import { shapeOfCluster } from 'setpoint/platforms/databricks/cluster-shape/cluster-shape';
import { jobFragmentOf } from 'setpoint/platforms/databricks/cluster-shape/job-fragment';
import { parseNewCluster } from 'setpoint/platforms/databricks/cluster-shape/parse-configuration';
import { DatabricksRecommender } from 'setpoint/platforms/databricks/recommender/databricks-recommender';
import { clusterFacts } from 'setpoint/platforms/databricks/runs/cluster-facts';
import { CostEngineCoster } from 'setpoint/platforms/databricks/runs/run-coster';
import { shippedCatalog } from 'setpoint/pricing/catalog/shipped-catalog';
import { createPriceCatalog, type PriceCatalog } from 'setpoint/pricing/price-catalog';
import type { InstanceTypeEntry } from 'setpoint/pricing/schema';
import { sharedFleetPriorSource } from 'setpoint/service/recommender/fleet-prior-source';
import { isLearningRun, recommendationIsLearning } from 'setpoint/service/recommender/learning';
import type { RecommenderRun } from 'setpoint/service/recommender/recommender-run';
import { runtimeSecondsOf } from 'setpoint/service/recommender/run-evidence';
import type { WorkspaceFacts } from 'setpoint/service/workspaces/workspace-service';
import { share } from '../sweep/sweep-statistics.js';
import {
  addRecommendationValidity,
  checkRecommendation,
  noRecommendationsChecked,
  type RecommendationValidity,
  simulatedWorkspaceFacts,
} from './recommendation-validity.js';

/** One Job Bank job cluster: a shipped workload on the cluster its job ships with (the cold start). */
export interface SimJob {
  name: string;
  workload: Workload;
  coldCluster: NewClusterSettings;
}

/** Every single-cluster unit of the shipped Job Bank (a multi-task job gives one unit per job cluster). */
export async function simJobs(): Promise<SimJob[]> {
  const { findShippedWorkload, shippedJobSettings } = await loadEmulator();
  const jobs: SimJob[] = [];
  for (const settings of shippedJobSettings()) {
    for (const task of settings.tasks ?? []) {
      const file = (task.spark_python_task as { python_file?: unknown } | undefined)?.python_file;
      const cluster =
        task.new_cluster ??
        settings.job_clusters?.find((entry) => entry.job_cluster_key === task.job_cluster_key)?.new_cluster;
      if (typeof file !== 'string' || !cluster) continue;
      const name = basename(file).replace(/\.py$/, '');
      const workload = findShippedWorkload(name);
      if (workload) jobs.push({ name, workload, coldCluster: cluster });
    }
  }
  return jobs;
}

export interface SimBenchOptions {
  jobs?: readonly string[];
  runs: number;
  seeds: number;
  /** SLA = this factor × the cold-start runtime. */
  slaFactor: number;
  /** Called after each finished (job, seed) for progress. */
  onProgress?: (done: number, total: number) => void;
}

/** One simulated run of the closed loop. */
export interface SimRunRecord {
  job: string;
  seed: number;
  runIndex: number;
  /** The phase of the recommendation this run was configured from (null for the cold start). */
  phase: ProjectPhase | null;
  /** Whether that recommendation was a learning run, as its decision says (null for the cold start). */
  learning: boolean | null;
  nodeType: string;
  workers: number;
  photon: boolean;
  availability: string;
  runtimeS: number;
  costUsd: number;
  /** The cold-start configuration's cost and runtime at the same run (same data size, same noise). */
  coldCostUsd: number;
  coldRuntimeS: number;
  /**
   * The cost at the same run of the cheapest configuration of the candidate space that meets the SLA, found
   * in hindsight by the physics (null: none does).
   */
  optimumCostUsd: number | null;
  /**
   * Whether, at this run, the configuration that meets the SLA most often over the loop's runs 2–N (chosen in
   * hindsight among the fastest by the physics) met it: what a fixed configuration could reach at best on
   * the same runs (null: the cold start, or a loop no configuration meets).
   */
  ceilingMet: boolean | null;
  completed: boolean;
  slaS: number;
  predictedRuntimeS: number | null;
  predictedCostUsd: number | null;
  /** Completed runs of this same configuration earlier in the loop (0: a configuration not tried yet). */
  priorRunsOnConfig: number;
  /** Total worker cores of this run over those of the run before it. */
  coresRatio: number | null;
}

export interface SimBenchResult {
  jobs: number;
  runsPerJob: number;
  seeds: number;
  slaFactor: number;
  /**
   * Every run after the first recommendation (runs 2 to N), learning runs included; `capturedSaving` over
   * the loops where some configuration meets the SLA.
   */
  afterFirstRecommendation: AfterFirstRecommendation;
  /** `afterFirstRecommendation.slaViolationRate`. */
  slaViolationRateAfterFirstRecommendation: number | null;
  afterLearning: {
    runs: number;
    slaMetShare: number | null;
    medianSaving: number | null;
    failureRate: number | null;
  };
  oneShot: { shareCheaper: number | null; medianSaving: number | null; slaMetShare: number | null };
  prediction: { runs: number; medianAbsError: number | null; p90AbsError: number | null };
  /** Predictions for configurations that already ran at least `minPriorRuns` times in the loop (1, then 3). */
  triedPrediction: Array<{
    minPriorRuns: number;
    runs: number;
    medianRuntimeError: number | null;
    medianCostError: number | null;
  }>;
  /**
   * The SLA met after learning counted only on loops where some configuration of the recommender's own
   * candidate space meets the SLA (median of its runs, by the physics): what the optimizer could reach.
   */
  feasibleOnly: {
    loops: number;
    infeasibleLoops: string[];
    runs: number;
    slaMetShare: number | null;
    /**
     * The same runs' share met by each loop's most reliable configuration in hindsight (`ceilingMet`): the
     * most any optimizer keeping one configuration could reach where the best one meets the SLA only on
     * some runs (a median within the SLA counts a loop as feasible).
     */
    ceilingSlaMetShare: number | null;
  };
  /**
   * Tight SLAs: whether each loop's last recommendation says the SLA is infeasible (the API's
   * `decision.sla.infeasible`, with the fastest configuration known), judged against the physics' hindsight.
   */
  infeasibleReported: {
    /** Loops no configuration can meet whose last recommendation says so. */
    reported: string[];
    /** Loops no configuration can meet whose last recommendation does not say so. */
    unreported: string[];
    /** Loops some configuration meets whose last recommendation says the SLA is infeasible. */
    falseAlarms: string[];
    /**
     * Runs 2+ of the infeasible loops that cost more than 1.05 × the cheapest run before them (every run
     * misses; 5% is above the same configuration's run-to-run noise).
     */
    dearerThanCheapestMiss: { runs: number; share: number | null };
  };
  perJob: Record<
    string,
    {
      medianSavingAfterLearning: number | null;
      slaMetShare: number | null;
      /** Share of the job's runs (all of them, learning included) that ran on Photon. */
      photonShare: number | null;
    }
  >;
  /** Every recommendation checked with Databricks' validity contract as the cluster it writes. */
  validity: RecommendationValidity;
  records: SimRunRecord[];
}

/** The simulated workspaces: one per cloud, in regions the shipped catalog prices. */
function workspaceFor(cluster: NewClusterSettings): WorkspaceFacts {
  const azure = (cluster.node_type_id ?? '').startsWith('Standard_');
  return {
    id: azure ? 'sim-azure' : 'sim-aws',
    platform: 'databricks',
    cloud: azure ? 'azure' : 'aws',
    region: azure ? 'westus2' : 'us-west-2',
    planType: 'premium',
    computeType: 'jobs compute',
  };
}

interface SimWorld {
  catalog: PriceCatalog;
  nodeTypes: InstanceTypeEntry[];
  coster: CostEngineCoster;
  recommender: DatabricksRecommender;
  scratch: string;
  emulator: EmulatorPackage;
  /** What each simulated workspace offers, as the validity contract reads it. */
  facts: Record<'aws' | 'azure', ReturnType<typeof simulatedWorkspaceFacts>>;
}

/** The prior of a fresh install (no organization projects yet): the shipped fleet, calibrated. */
function shippedPrior(): Promise<FleetPrior> {
  return sharedFleetPriorSource().priorFor('bench', undefined, () => null);
}

/** `prior`: what a fresh install recommends with — the shipped fleet prior, learned once as the service does. */
function createWorld(emulator: EmulatorPackage, prior: FleetPrior): SimWorld {
  const catalog = createPriceCatalog([shippedCatalog]);
  // The node types the workspace offers: priced in the catalog and known to the simulated cloud.
  const nodeTypes: InstanceTypeEntry[] = shippedCatalog.instanceTypes.filter(
    (entry) => emulator.findNodeType(entry.instanceType) !== undefined,
  );
  return {
    catalog,
    nodeTypes,
    coster: new CostEngineCoster(catalog),
    recommender: new DatabricksRecommender({ catalog, nodeTypes, prior }),
    scratch: mkdtempSync(join(tmpdir(), 'setpoint-bench-sim-')),
    emulator,
    facts: {
      aws: simulatedWorkspaceFacts(emulator, 'aws'),
      azure: simulatedWorkspaceFacts(emulator, 'azure'),
    },
  };
}

interface Measured {
  run: RecommenderRun;
  runtimeS: number;
  completed: boolean;
}

/** Simulates one run, writes its event log, reads it back with the event log engine and costs it. */
async function measure(
  world: SimWorld,
  job: SimJob,
  cluster: NewClusterSettings,
  seed: number,
  runIndex: number,
): Promise<Measured> {
  const workspace = workspaceFor(job.coldCluster);
  const region = workspace.region ?? '';
  const simulated = world.emulator.simulateRun(job.workload, cluster as NewClusterLike, seed, runIndex, {
    identity: { region },
  });
  const path = join(world.scratch, `${job.name}-${seed}-${runIndex}.eventlog`);
  writeFileSync(path, `${simulated.eventLogLines.join('\n')}\n`);
  const profile = await analyzeEventLog(path);
  rmSync(path, { force: true });
  const facts = clusterFacts(null, profile);
  const cluster_ = {
    ...facts,
    cloud: (facts.cloud ?? workspace.cloud).toLowerCase(),
    region: facts.region ?? region,
    nodeTypeId: facts.nodeTypeId ?? cluster.node_type_id ?? null,
  };
  const cost = await world.coster.cost({
    profile,
    cluster: cluster_,
    clusterReport: null,
    workspace: workspaceFor(job.coldCluster),
  });
  const completed = simulated.outcome === 'SUCCESS';
  return {
    run: {
      id: `run_${runIndex}`,
      externalRunId: `${job.name}-${seed}-${runIndex}`,
      status: completed ? 'SUCCESS' : 'FAILED',
      startedAt: profile.application.startTime,
      endedAt: profile.application.endTime,
      cluster: cluster_,
      clusterConfig: cluster as Record<string, unknown>,
      profile: modelProfileOf(profile),
      cost,
      inputBytes: profile.totals.inputBytes,
      recommendationId: null,
    },
    runtimeS: runtimeSecondsOf(profile),
    completed,
  };
}

/** A loop's measurement of a configuration on one of its runs (same cluster and run: same measurement). */
type MeasureOnLoop = (cluster: NewClusterSettings, runIndex: number) => Promise<Measured>;

/**
 * `measure` for one loop, each configuration and run measured once: the physics are deterministic for the
 * cluster, seed and run, and the loop, the optimum, the feasibility check and the ceiling ask for many of the
 * same measurements.
 */
function measurementsOf(world: SimWorld, job: SimJob, seed: number): MeasureOnLoop {
  const measured = new Map<string, Promise<Measured>>();
  return (cluster, runIndex) => {
    const key = `${runIndex} ${JSON.stringify(cluster)}`;
    let measurement = measured.get(key);
    if (!measurement) {
      measurement = measure(world, job, cluster, seed, runIndex);
      measured.set(key, measurement);
    }
    return measurement;
  };
}

/** The job's cluster with the recommendation's managed fields written over it, as apply would. */
function applyFragment(cluster: NewClusterSettings, fragment: Record<string, unknown>): NewClusterSettings {
  const next: Record<string, unknown> = { ...cluster };
  delete next.num_workers;
  delete next.autoscale;
  for (const [key, value] of Object.entries(fragment)) {
    if (key === 'aws_attributes' || key === 'azure_attributes') {
      next[key] = {
        ...((cluster as Record<string, unknown>)[key] as object | undefined),
        ...(value as object),
      };
    } else {
      next[key] = value;
    }
  }
  return next as NewClusterSettings;
}

function coresOf(world: SimWorld, cluster: NewClusterSettings): number {
  const workers = cluster.num_workers ?? cluster.autoscale?.max_workers ?? 1;
  return workers * (world.emulator.findNodeType(cluster.node_type_id ?? '')?.cores ?? 1);
}

/** Runs (of the loop's own run indices) on which a candidate's runtime is measured for the feasibility check. */
const feasibilityRuns = [1, 3, 5, 7, 9];
/** Candidates, fastest by the physics first, whose measured runtimes the feasibility check compares with the SLA. */
const feasibilityShortlist = 4;
/** Distinct configurations, fastest by the physics first, measured on every run for the reliability ceiling. */
const ceilingShortlist = 4;
/** Runs on which a candidate is measured when looking for the cheapest that meets the SLA in hindsight. */
const optimumRuns = [1, 5, 9];
/** At most this many candidates, cheapest by the physics first, are measured for the optimum. */
const optimumShortlist = 6;
/**
 * The physics' execution time is not the event log's runtime (start-up, the driver's own work): the optimum
 * shortlist keeps configurations up to this share over the SLA, and measuring them decides.
 */
const optimumScreenMargin = 1.15;

/** What the candidate space allows, in hindsight: whether any configuration meets the SLA and the cheapest that does. */
interface Hindsight {
  feasible: boolean;
  /** The cheapest configuration whose measured median runtime is within the SLA (null: none found). */
  optimum: NewClusterSettings | null;
  /** By run index (1 to N − 1): whether the most reliable configuration met the SLA (empty: infeasible). */
  ceiling: ReadonlyMap<number, boolean>;
}

/** A configuration's measured median runtime and cost over some of the loop's runs (a failed run never meets the SLA). */
async function measuredMedians(
  measureOnLoop: MeasureOnLoop,
  cluster: NewClusterSettings,
  runIndices: readonly number[],
) {
  const seconds: number[] = [];
  const costs: number[] = [];
  for (const runIndex of runIndices) {
    const measured = await measureOnLoop(cluster, runIndex);
    seconds.push(measured.completed ? measured.runtimeS : Number.POSITIVE_INFINITY);
    costs.push(measured.run.cost.totalUsd);
  }
  return { runtimeS: quantile(seconds, 0.5), costUsd: quantile(costs, 0.5) };
}

/**
 * Whether any configuration of the recommender's own candidate space (allowed, on either engine: the other
 * one is reached by an engine trial) meets the SLA, and the cheapest that does. The space's configurations
 * are screened by the physics' execution time; the fastest are measured as the loop measures runs (event
 * log duration) — feasible when one's median runtime is within the SLA (a cold cluster whose first run met
 * the SLA is feasible without a search). The optimum: the space's configurations by the physics' cost, the
 * first whose measured median runtime is within the SLA (the cold cluster competes like any other); none
 * when the few cheapest that the physics puts near the SLA all miss it.
 */
async function hindsightOf(
  world: SimWorld,
  job: SimJob,
  seed: number,
  measureOnLoop: MeasureOnLoop,
  slaS: number,
  coldS: number,
  runs: number,
): Promise<Hindsight> {
  const workspace = workspaceFor(job.coldCluster);
  const cloud = workspace.cloud as 'aws' | 'azure';
  const current = shapeOfCluster(parseNewCluster(job.coldCluster), cloud);
  const space = buildCandidateSpace(world.catalog, world.nodeTypes, {
    cloud,
    region: workspace.region ?? '',
    plan: 'premium',
    settings: { ...defaultProjectSettings(), slaMinutes: slaS / 60 },
    current,
    observed: [],
  });
  const screened: Array<{ cluster: NewClusterSettings; executionMs: number; costUsd: number }> = [];
  // the other engine too: the recommender may reach it through an engine trial
  const trials = space.trials?.entries.map((trial) => trial.entry) ?? [];
  for (const entry of [...space.entries, ...trials]) {
    if (!entry.allowed) continue;
    const cluster = applyFragment(
      job.coldCluster,
      jobFragmentOf(entry.shape, parseNewCluster(job.coldCluster)),
    );
    const simulated = world.emulator.simulateRun(job.workload, cluster as NewClusterLike, seed, 1);
    if (simulated.outcome === 'SUCCESS') {
      const costUsd = (candidateRateUsdPerHour(entry.candidate) * simulated.runtimeMs) / 3_600_000;
      screened.push({ cluster, executionMs: simulated.runtimeMs, costUsd });
    }
  }
  let feasible = coldS <= slaS;
  // the cheapest by the physics first (the cold cluster among them): the first measured within the SLA
  let optimum: NewClusterSettings | null = null;
  const cheapest = screened
    .filter((entry) => entry.executionMs / 1000 <= slaS * optimumScreenMargin)
    .sort((a, b) => a.costUsd - b.costUsd)
    .slice(0, optimumShortlist);
  for (const { cluster } of cheapest) {
    if ((await measuredMedians(measureOnLoop, cluster, optimumRuns)).runtimeS <= slaS) {
      optimum = cluster;
      feasible = true;
      break;
    }
  }
  // a cold cluster that met the SLA is the optimum at worst
  if (!optimum && coldS <= slaS) optimum = job.coldCluster;
  const fastest = [...screened].sort((a, b) => a.executionMs - b.executionMs);
  if (!feasible) {
    for (const { cluster } of fastest.slice(0, feasibilityShortlist)) {
      const medians = await measuredMedians(measureOnLoop, cluster, feasibilityRuns);
      if (medians.runtimeS <= slaS) {
        feasible = true;
        break;
      }
    }
  }
  const ceiling = feasible ? await reliabilityCeiling(measureOnLoop, slaS, fastest, runs) : new Map();
  return { feasible, optimum, ceiling };
}

/**
 * Of the fastest distinct configurations (`fastest`: by the physics' execution time, fastest first; spot and
 * on-demand twins run alike), the one that meets the SLA on most of runs 1 to N − 1, and on which of them it
 * does (ties: the faster one).
 */
async function reliabilityCeiling(
  measureOnLoop: MeasureOnLoop,
  slaS: number,
  fastest: ReadonlyArray<{ cluster: NewClusterSettings }>,
  runs: number,
): Promise<Map<number, boolean>> {
  const distinct = new Map<string, NewClusterSettings>();
  for (const { cluster } of fastest) {
    const key = JSON.stringify([
      cluster.node_type_id,
      cluster.num_workers,
      cluster.autoscale,
      cluster.runtime_engine,
    ]);
    if (!distinct.has(key)) distinct.set(key, cluster);
    if (distinct.size === ceilingShortlist) break;
  }
  let best = new Map<number, boolean>();
  let bestMet = -1;
  for (const cluster of distinct.values()) {
    const met = new Map<number, boolean>();
    for (let runIndex = 1; runIndex < runs; runIndex++) {
      const measured = await measureOnLoop(cluster, runIndex);
      met.set(runIndex, measured.completed && measured.runtimeS <= slaS);
    }
    const count = [...met.values()].filter(Boolean).length;
    if (count > bestMet) {
      best = met;
      bestMet = count;
    }
  }
  return best;
}

async function runJob(
  world: SimWorld,
  job: SimJob,
  seed: number,
  options: SimBenchOptions,
): Promise<{
  records: SimRunRecord[];
  feasible: boolean;
  saysInfeasible: boolean;
  validity: RecommendationValidity;
}> {
  const records: SimRunRecord[] = [];
  const validity = noRecommendationsChecked();
  const facts = world.facts[workspaceFor(job.coldCluster).cloud as 'aws' | 'azure'];
  const runs: RecommenderRun[] = [];
  let hindsight: Hindsight = { feasible: true, optimum: null, ceiling: new Map() };
  let cluster = job.coldCluster;
  let slaS = Number.NaN;
  let phase: ProjectPhase | null = null;
  let learning: boolean | null = null;
  let predicted: number | null = null;
  let predictedCost: number | null = null;
  let previousCores: number | null = null;
  let saysInfeasible = false;
  const completedRuns = new Map<string, number>();
  const measureOnLoop = measurementsOf(world, job, seed);
  for (let runIndex = 0; runIndex < options.runs; runIndex++) {
    const measured = await measureOnLoop(cluster, runIndex);
    const cold = await measureOnLoop(job.coldCluster, runIndex);
    if (runIndex === 0) {
      slaS = measured.runtimeS * options.slaFactor;
      hindsight = await hindsightOf(world, job, seed, measureOnLoop, slaS, measured.runtimeS, options.runs);
    }
    const optimum = hindsight.optimum ? await measureOnLoop(hindsight.optimum, runIndex) : null;
    runs.push({ ...measured.run, id: `run_${runIndex}` });
    const cores = coresOf(world, cluster);
    const configKey = JSON.stringify([
      cluster.node_type_id,
      cluster.num_workers,
      cluster.autoscale,
      cluster.runtime_engine ?? 'STANDARD',
      cluster.aws_attributes?.availability ?? cluster.azure_attributes?.availability,
    ]);
    const priorRunsOnConfig = completedRuns.get(configKey) ?? 0;
    if (measured.completed) completedRuns.set(configKey, priorRunsOnConfig + 1);
    records.push({
      job: job.name,
      seed,
      runIndex,
      phase,
      learning,
      nodeType: cluster.node_type_id ?? '',
      workers: cluster.num_workers ?? cluster.autoscale?.max_workers ?? 0,
      photon: cluster.runtime_engine === 'PHOTON',
      availability: String(
        cluster.aws_attributes?.availability ?? cluster.azure_attributes?.availability ?? '',
      ),
      runtimeS: measured.runtimeS,
      costUsd: measured.run.cost.totalUsd,
      coldCostUsd: cold.run.cost.totalUsd,
      coldRuntimeS: cold.runtimeS,
      optimumCostUsd: optimum ? optimum.run.cost.totalUsd : null,
      ceilingMet: hindsight.ceiling.get(runIndex) ?? null,
      completed: measured.completed,
      slaS,
      predictedRuntimeS: predicted,
      predictedCostUsd: predictedCost,
      priorRunsOnConfig,
      coresRatio: previousCores === null ? null : cores / previousCores,
    });
    previousCores = cores;
    const output = world.recommender.recommendNow({
      project: {
        id: job.name,
        name: job.name,
        phase: phase ?? 'LEARNING',
        settings: { ...defaultProjectSettings(), preference: 'economy', slaMinutes: slaS / 60 },
        workspace: workspaceFor(job.coldCluster),
      },
      basedOnRunId: `run_${runIndex}`,
      runs,
      recommendations: [],
    });
    phase = output.phase;
    learning = recommendationIsLearning({ phase: output.phase, decision: output.decision });
    saysInfeasible = output.decision?.sla.kind === 'project' && !output.decision.sla.feasible;
    predicted = output.prediction.runtimeMinutes.mid * 60;
    predictedCost = output.prediction.costUsd?.mid ?? null;
    const next = applyFragment(cluster, output.configuration);
    checkRecommendation(validity, `${job.name} seed ${seed} after run ${runIndex}`, next, cluster, facts);
    cluster = next;
  }
  return { records, feasible: hindsight.feasible, saysInfeasible, validity };
}

/**
 * The simulated Job Bank: for every shipped workload and seed, run the closed loop for `runs` runs —
 * simulate on the emulator's physics, parse the real event log, cost it, recommend, apply — and measure
 * what the service's recommender achieves. Deterministic for the seeds.
 */
export async function runSimBench(options: SimBenchOptions): Promise<SimBenchResult> {
  const all = await simJobs();
  const selected =
    options.jobs && options.jobs.length > 0 && !options.jobs.includes('all')
      ? options.jobs.map((name) => {
          const job = all.find((entry) => entry.name === name);
          if (!job) {
            throw new ValidationError(
              'UNKNOWN_JOB',
              `--jobs: no shipped workload "${name}" (known: ${all.map((entry) => entry.name).join(', ')})`,
            );
          }
          return job;
        })
      : all;
  const world = createWorld(await loadEmulator(), await shippedPrior());
  const records: SimRunRecord[] = [];
  const feasibleLoops = new Map<string, boolean>();
  const saysInfeasible = new Map<string, boolean>();
  let validity = noRecommendationsChecked();
  try {
    let done = 0;
    for (const job of selected) {
      for (let seed = 1; seed <= options.seeds; seed++) {
        const loop = await runJob(world, job, seed, options);
        records.push(...loop.records);
        feasibleLoops.set(loopKey(job.name, seed), loop.feasible);
        saysInfeasible.set(loopKey(job.name, seed), loop.saysInfeasible);
        validity = addRecommendationValidity(validity, loop.validity);
        options.onProgress?.(++done, selected.length * options.seeds);
      }
    }
  } finally {
    rmSync(world.scratch, { recursive: true, force: true });
  }
  return { ...summarize(records, selected.length, options, feasibleLoops, saysInfeasible), validity };
}

const loopKey = (job: string, seed: number) => `${job}#${seed}`;

/** |predicted − observed| / observed, for records with a prediction and a completed run. */
function relativeErrors(
  records: readonly SimRunRecord[],
  predicted: (record: SimRunRecord) => number | null,
  observed: (record: SimRunRecord) => number,
): number[] {
  return records
    .filter((record) => record.completed && predicted(record) !== null && observed(record) > 0)
    .map((record) => Math.abs((predicted(record) as number) - observed(record)) / observed(record));
}

/** "Already tried": the configuration completed at least this many runs earlier in the loop (the service trusts three). */
const triedMinPriorRuns = [1, 3];

/** A loop's runs as a team lives through them, in run order. */
function loopEpisode(loop: readonly SimRunRecord[]): LoopEpisode {
  return [...loop]
    .sort((a, b) => a.runIndex - b.runIndex)
    .map((record) => ({
      runtime: record.runtimeS,
      completed: record.completed,
      slaTime: record.slaS,
      costUsd: record.costUsd,
      coldCostUsd: record.coldCostUsd,
      coldRuntime: record.coldRuntimeS,
      optimumCostUsd: record.optimumCostUsd,
    }));
}

const isAfterLearning = (record: SimRunRecord) => !isLearningRun(record.learning, record.runIndex);

export function summarize(
  records: SimRunRecord[],
  jobs: number,
  options: SimBenchOptions,
  feasibleLoops: ReadonlyMap<string, boolean> = new Map(),
  saysInfeasible: ReadonlyMap<string, boolean> = new Map(),
): Omit<SimBenchResult, 'validity'> {
  const after = records.filter(isAfterLearning);
  const savingOf = (record: SimRunRecord) =>
    record.completed ? 1 - record.costUsd / record.coldCostUsd : Number.NEGATIVE_INFINITY;
  const meetsSla = (record: SimRunRecord) => record.completed && record.runtimeS <= record.slaS;
  const loops = new Map<string, SimRunRecord[]>();
  for (const record of records) {
    const key = loopKey(record.job, record.seed);
    loops.set(key, [...(loops.get(key) ?? []), record]);
  }
  const loopSavings = [...loops.values()]
    .map((loop) => loop.filter(isAfterLearning).map(savingOf))
    .filter((savings) => savings.length > 0)
    .map((savings) => quantile(savings, 0.5));
  const oneShot = [...loops.values()]
    .map((loop) => loop[1])
    .filter((record): record is SimRunRecord => record !== undefined);
  const errors = relativeErrors(
    records,
    (record) => record.predictedRuntimeS,
    (record) => record.runtimeS,
  );
  const feasibleAfter = after.filter(
    (record) => feasibleLoops.get(loopKey(record.job, record.seed)) !== false,
  );
  const infeasibleLoops = [...feasibleLoops].filter(([, feasible]) => !feasible).map(([key]) => key);
  const everyRun = afterFirstRecommendation([...loops.values()].map(loopEpisode));
  const infeasibleRuns = infeasibleLoops.flatMap((key) => runsAfterTheFirst(loops.get(key) ?? []));
  const dearer = infeasibleRuns.filter(
    ({ record, cheapestBefore }) => record.costUsd > cheapestBefore * costNoiseTolerance,
  );
  const perJob: SimBenchResult['perJob'] = {};
  for (const name of new Set(records.map((record) => record.job))) {
    const own = after.filter((record) => record.job === name);
    perJob[name] = {
      medianSavingAfterLearning: rounded(quantile(own.map(savingOf), 0.5)),
      slaMetShare: rounded(share(own.map(meetsSla))),
      photonShare: rounded(share(records.filter((record) => record.job === name).map((r) => r.photon))),
    };
  }
  return {
    jobs,
    runsPerJob: options.runs,
    seeds: options.seeds,
    slaFactor: options.slaFactor,
    afterFirstRecommendation: everyRun,
    slaViolationRateAfterFirstRecommendation: everyRun.slaViolationRate,
    afterLearning: {
      runs: after.length,
      slaMetShare: rounded(share(after.map(meetsSla))),
      medianSaving: rounded(quantile(loopSavings, 0.5)),
      failureRate: rounded(share(after.map((record) => !record.completed))),
    },
    oneShot: {
      shareCheaper: rounded(
        share(oneShot.map((record) => record.completed && record.costUsd < record.coldCostUsd)),
      ),
      medianSaving: rounded(quantile(oneShot.map(savingOf), 0.5)),
      slaMetShare: rounded(share(oneShot.map(meetsSla))),
    },
    prediction: {
      runs: errors.length,
      medianAbsError: rounded(quantile(errors, 0.5)),
      p90AbsError: rounded(quantile(errors, 0.9)),
    },
    triedPrediction: triedMinPriorRuns.map((minPriorRuns) => {
      const tried = records.filter((record) => record.priorRunsOnConfig >= minPriorRuns);
      return {
        minPriorRuns,
        runs: tried.filter((record) => record.completed).length,
        medianRuntimeError: rounded(
          quantile(
            relativeErrors(
              tried,
              (record) => record.predictedRuntimeS,
              (record) => record.runtimeS,
            ),
            0.5,
          ),
        ),
        medianCostError: rounded(
          quantile(
            relativeErrors(
              tried,
              (record) => record.predictedCostUsd,
              (record) => record.costUsd,
            ),
            0.5,
          ),
        ),
      };
    }),
    feasibleOnly: {
      loops: loops.size - infeasibleLoops.length,
      infeasibleLoops,
      runs: feasibleAfter.length,
      slaMetShare: rounded(share(feasibleAfter.map(meetsSla))),
      ceilingSlaMetShare: rounded(
        share(
          feasibleAfter
            .filter((record) => record.ceilingMet !== null)
            .map((record) => record.ceilingMet === true),
        ),
      ),
    },
    infeasibleReported: {
      reported: infeasibleLoops.filter((key) => saysInfeasible.get(key) === true),
      unreported: infeasibleLoops.filter((key) => saysInfeasible.get(key) !== true),
      falseAlarms: [...feasibleLoops]
        .filter(([key, feasible]) => feasible && saysInfeasible.get(key) === true)
        .map(([key]) => key),
      dearerThanCheapestMiss: {
        runs: infeasibleRuns.length,
        share: rounded(share(infeasibleRuns.map((run) => dearer.includes(run)))),
      },
    },
    perJob,
    records,
  };
}

/** Dearer means beyond run-to-run noise: the same configuration's cost varies by a few percent (noise 3%). */
const costNoiseTolerance = 1.05;

/** A loop's runs after its first, each with the cost of the cheapest completed run before it. */
function runsAfterTheFirst(loop: readonly SimRunRecord[]) {
  const ordered = [...loop].sort((a, b) => a.runIndex - b.runIndex);
  return ordered.slice(1).map((record, index) => ({
    record,
    cheapestBefore: Math.min(
      ...ordered
        .slice(0, index + 1)
        .filter((before) => before.completed)
        .map((before) => before.costUsd),
    ),
  }));
}
