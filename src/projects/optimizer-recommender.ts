import { Matrix, solve } from 'ml-matrix';
import type { Market } from '../cost/cluster-spec.js';
import { type CostModel, createCostModel } from '../cost/cost-model.js';
import { ValidationError } from '../errors/index.js';
import type { RunProfile } from '../eventlog/run-profile.js';
import { instanceFamily } from '../optimizer/config-features.js';
import { type FleetPrior, uninformedPrior } from '../optimizer/fleet-prior.js';
import { JobOptimizer, type OptimizerSettings, type Recommendation } from '../optimizer/recommend.js';
import { RuntimeAnalog } from '../optimizer/runtime-analog.js';
import type { Candidate, Observation, RunProfileFeatures } from '../optimizer/types.js';
import type { PriceCatalog } from '../pricing/price-catalog.js';
import { type Cloud, type InstanceTypeEntry, type Plan, planSchema } from '../pricing/schema.js';
import {
  buildCandidateSpace,
  type CandidateSpace,
  type ClusterChoice,
  choiceId,
  type SpaceEntry,
} from './candidate-space.js';
import type {
  NewClusterFragment,
  RecommendationInput,
  RecommendationOutput,
  Recommender,
  RecommenderRun,
} from './ports.js';
import type { ProjectSettings } from './project-settings.js';

const defaultRegion: Record<Cloud, string> = { aws: 'us-east-1', azure: 'eastus' };

/** When the job changed so much that earlier runs no longer describe it. */
export interface RebaseSettings {
  /** Input size outside [min ÷ this, max × this] of the runs since the last rebase. */
  inputGrowthFactor: number;
  /** Total task count outside [min ÷ this, max × this] while the input size stayed within range. */
  taskCountFactor: number;
  /** Runtime on an already-run configuration off its earlier mean by more than this fraction. */
  runtimeAnomaly: number;
}

export const defaultRebaseSettings: RebaseSettings = {
  inputGrowthFactor: 1.5,
  taskCountFactor: 1.5,
  runtimeAnomaly: 0.3,
};

/**
 * A job in production runs on what Setpoint recommends: after LEARNING, an untried configuration must be
 * as likely to meet the SLA as any exploit (the optimizer's default, 0.7, suits offline search).
 */
export const serviceOptimizerSettings: Partial<OptimizerSettings> = { explorationConfidence: 0.9 };

/**
 * No configuration finishes faster than this share of the based-on run's driver time plus critical path
 * (the longest chain of stages, each at its longest task): faster CPUs and Photon shorten tasks, not the chain.
 */
export const criticalPathFloorShare = 0.4;

/**
 * A run that spilled needed more execution memory per task than its cores had: configurations with less
 * memory per core would spill more and, past the unspillable share, fail. They are not tried.
 */
export function spillMemoryPerCore(
  runs: readonly RecommenderRun[],
  choices: readonly ClusterChoice[],
  space: CandidateSpace,
): number {
  let floor = 0;
  for (const [i, run] of runs.entries()) {
    const choice = choices[i];
    if (!choice || !runCompleted(run) || run.profile.totals.diskBytesSpilled <= 0) continue;
    const candidate = space.byId.get(choiceId(choice))?.candidate;
    if (candidate) floor = Math.max(floor, candidate.memoryGibPerNode / candidate.vcpusPerNode);
  }
  return floor;
}

export function runtimeFloorSeconds(profile: RunProfile): number {
  return ((profile.analysis.driverTimeMs + profile.analysis.criticalPathMs) * criticalPathFloorShare) / 1000;
}

/** A spot recommendation needs at least this P(runtime ≤ SLA); below it the on-demand twin is chosen. */
export const spotMinSlaConfidence = 0.97;

export interface OptimizerRecommenderOptions {
  catalog: PriceCatalog;
  /** Instance types of the catalog (shipped and imported layers). */
  nodeTypes: readonly InstanceTypeEntry[];
  /** What the fleet teaches; without one, an uninformed prior over the space's families. */
  prior?: FleetPrior;
  optimizer?: Partial<OptimizerSettings>;
  rebase?: Partial<RebaseSettings>;
}

/**
 * The service's recommender: turns a project's runs into observations on a discrete space of Databricks
 * job clusters, lets the based-on run's what-if replay tell the model how the job scales out, asks the
 * optimizer for the next configuration and returns it as a `new_cluster` fragment. Pure: no I/O.
 */
export class OptimizerRecommender implements Recommender {
  readonly #catalog: PriceCatalog;
  readonly #costModel: CostModel;
  readonly #nodeTypes: readonly InstanceTypeEntry[];
  readonly #prior: FleetPrior | undefined;
  readonly #optimizer: Partial<OptimizerSettings>;
  readonly #rebase: RebaseSettings;

  constructor(options: OptimizerRecommenderOptions) {
    this.#catalog = options.catalog;
    this.#costModel = createCostModel(options.catalog);
    this.#nodeTypes = options.nodeTypes;
    this.#prior = options.prior;
    this.#optimizer = { ...serviceOptimizerSettings, ...options.optimizer };
    this.#rebase = { ...defaultRebaseSettings, ...options.rebase };
  }

  async recommend(input: RecommendationInput): Promise<RecommendationOutput> {
    return this.recommendNow(input);
  }

  /** The same decision, synchronously (the bench calls it thousands of times). */
  recommendNow(input: RecommendationInput): RecommendationOutput {
    const { settings, workspace } = input.project;
    const basedOnIndex = input.runs.findIndex((run) => run.id === input.basedOnRunId);
    const basedOn = input.runs[basedOnIndex];
    if (!basedOn) {
      throw new ValidationError('RUN_NOT_PROFILED', `run ${input.basedOnRunId} has no profile and cost yet`);
    }
    const runs = input.runs.slice(0, basedOnIndex + 1);
    const cloud = cloudOf(basedOn, workspace?.cloud ?? null);
    const region = basedOn.cluster.region ?? workspace?.region ?? defaultRegion[cloud];
    const plan = planOf(workspace?.planType ?? null);
    const choices = runs.map((run) => choiceOfRun(run, cloud, settings));
    const current = choices.at(-1) as ClusterChoice;
    const space = buildCandidateSpace(
      this.#catalog,
      this.#nodeTypes,
      { cloud, region, plan, settings, current, observed: choices },
      this.#costModel,
    );
    const segment = segmentSinceRebase(runs, choices, this.#rebase);
    const rebasing = segment.start === runs.length - 1 && runs.length > 1;
    const latestInput = inputBytesOf(basedOn);
    const observations = runs
      .slice(segment.start)
      .map((run, i) => observationOf(run, choices[segment.start + i] as ClusterChoice, latestInput));
    const candidates = space.entries.map((entry) => entry.candidate);
    const families = candidates.map((candidate) => candidate.instanceType);
    const basePrior = this.#prior ?? uninformedPrior(families.map(instanceFamily));
    const analog = whatIfAnalog(basePrior, space, current, basedOn);
    const prior = analog ? { ...basePrior, analogs: [...basePrior.analogs, analog.model] } : basePrior;
    const optimizerSettings = { ...this.#optimizer, preference: settings.preference };
    const floorS = runtimeFloorSeconds(basedOn.profile);
    const tried = new Set(observations.map((observation) => observation.candidateId));
    const minMemoryPerCore = spillMemoryPerCore(
      runs.slice(segment.start),
      choices.slice(segment.start),
      space,
    );
    let pool = candidates.filter(
      (candidate) =>
        tried.has(candidate.id) ||
        candidate.id === choiceId(current) ||
        candidate.memoryGibPerNode / candidate.vcpusPerNode >= minMemoryPerCore,
    );
    const request = (pool: readonly Candidate[]) => ({
      candidates: pool,
      observations,
      currentCandidateId: choiceId(current),
      ...(settings.slaMinutes === null ? {} : { slaSeconds: settings.slaMinutes * 60 }),
      bounds: {
        allowedFamilies: space.allowedFamilies,
        minNodes: Math.max(1, settings.minWorkers),
        maxNodes: settings.maxWorkers,
      },
    });
    // The model may extrapolate below what the critical path allows: such untried configurations are dropped.
    const screening = new JobOptimizer(prior, pool, optimizerSettings).assess(request(pool));
    const implausible = new Set(
      screening.assessments
        .filter(
          (entry) => !tried.has(entry.candidate.id) && screening.mixture.quantile(entry.index, 0.5) < floorS,
        )
        .map((entry) => entry.candidate.id),
    );
    pool = pool.filter((candidate) => !implausible.has(candidate.id) || candidate.id === choiceId(current));
    const recommendation = new JobOptimizer(prior, pool, optimizerSettings).recommend(request(pool));
    const chosen = withSpotRisk(space, recommendation, settings);
    const phase = rebasing ? 'REBASING' : recommendation.phase;
    return {
      phase,
      configuration: fragmentOf(chosen.entry.choice),
      prediction: {
        runtimeMinutes: scaleRange(recommendation.predictedRuntimeS, 1 / 60),
        costUsd: chosen.costUsd,
      },
      explanation: explanationOf({
        recommendation,
        phase,
        rebaseReason: rebasing ? segment.reason : null,
        basedOn,
        analog: analog?.summary ?? null,
        spotNote: chosen.note,
        currentCostUsd: basedOn.cost.totalUsd,
      }),
    };
  }
}

function cloudOf(run: RecommenderRun, workspaceCloud: string | null): Cloud {
  const cloud = (run.cluster.cloud ?? workspaceCloud ?? 'aws').toLowerCase();
  if (cloud === 'aws' || cloud === 'azure') return cloud;
  throw new ValidationError(
    'RUN_CLOUD_UNSUPPORTED',
    `cannot optimize a job on cloud "${cloud}" (aws and azure are priced)`,
  );
}

function planOf(planType: string | null): Plan {
  const parsed = planSchema.safeParse((planType ?? 'premium').toLowerCase());
  return parsed.success ? parsed.data : 'premium';
}

function marketOf(availability: string | null): Market {
  const value = (availability ?? '').toUpperCase();
  if (value.startsWith('SPOT_WITH_FALLBACK')) return 'spot-with-fallback';
  if (value.startsWith('SPOT')) return 'spot';
  return 'on-demand';
}

function stringField(record: Record<string, unknown> | null, key: string): string | null {
  const value = record?.[key];
  return typeof value === 'string' ? value : null;
}

function numberField(record: Record<string, unknown> | null, key: string): number | null {
  const value = record?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function recordField(record: Record<string, unknown> | null, key: string): Record<string, unknown> | null {
  const value = record?.[key];
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : null;
}

/** The cluster a run used: its `new_cluster` when a cluster report gave it, else the cluster facts. */
export function choiceOfRun(run: RecommenderRun, cloud: Cloud, settings: ProjectSettings): ClusterChoice {
  const config = run.clusterConfig;
  const workerNodeType = stringField(config, 'node_type_id') ?? run.cluster.nodeTypeId;
  if (!workerNodeType) {
    throw new ValidationError(
      'RUN_NODE_TYPE_UNKNOWN',
      `run ${run.externalRunId} names no worker node type: upload a cluster_report or an event log with Databricks cluster tags`,
    );
  }
  const autoscaleConfig = recordField(config, 'autoscale');
  const autoscale = autoscaleConfig
    ? {
        minWorkers: numberField(autoscaleConfig, 'min_workers') ?? 1,
        maxWorkers: numberField(autoscaleConfig, 'max_workers') ?? 1,
      }
    : run.cluster.autoscale;
  const workers = Math.max(
    1,
    autoscale?.maxWorkers ??
      numberField(config, 'num_workers') ??
      run.cluster.workers ??
      run.profile.executors.maxConcurrent,
  );
  const attributes = recordField(config, cloud === 'azure' ? 'azure_attributes' : 'aws_attributes');
  const market = marketOf(stringField(attributes, 'availability') ?? run.cluster.availability);
  const engine = stringField(config, 'runtime_engine');
  return {
    cloud,
    workerNodeType,
    driverNodeType:
      stringField(config, 'driver_node_type_id') ?? run.cluster.driverNodeTypeId ?? workerNodeType,
    workers,
    autoscale: autoscale ? { minWorkers: autoscale.minWorkers, maxWorkers: workers } : null,
    market,
    firstOnDemand:
      market === 'on-demand'
        ? 0
        : (numberField(attributes, 'first_on_demand') ?? (settings.forceOnDemandDriver ? 1 : 0)),
    photon: engine ? engine === 'PHOTON' : (run.cluster.photon ?? false),
  };
}

export function runtimeSecondsOf(profile: RunProfile): number {
  return (profile.application.durationMs ?? profile.analysis.wallTimeMs) / 1000;
}

function inputBytesOf(run: RecommenderRun): number {
  return run.inputBytes ?? run.profile.totals.inputBytes;
}

const failedStatus = /FAIL|ERROR|TIMEDOUT|TIMED_OUT|CANCEL|INTERNAL/i;

export function runCompleted(run: RecommenderRun): boolean {
  if (run.status && failedStatus.test(run.status)) return false;
  if (run.profile.application.exitCode !== null && run.profile.application.exitCode !== 0) return false;
  return !run.profile.jobs.some((job) => job.status === 'FAILED');
}

/**
 * Memory the run held at its peak, GiB: per stage, the mean peak execution memory of a task times the
 * tasks that ran at once, over the execution share of node memory (about half of it on Databricks).
 */
export function peakMemoryGibOf(profile: RunProfile): number {
  const slots = Math.max(1, profile.executors.maxConcurrent * profile.executors.coresPerExecutor);
  let peak = 0;
  for (const stage of profile.stages) {
    if (stage.tasks === 0) continue;
    const perTask = stage.peakExecutionMemoryBytes / stage.tasks;
    peak = Math.max(peak, perTask * Math.min(stage.numTasks, slots));
  }
  const executionShareOfNodeMemory = 0.5;
  return peak / executionShareOfNodeMemory / 2 ** 30;
}

function profileFeatures(run: RecommenderRun): RunProfileFeatures {
  const { totals } = run.profile;
  return {
    totalExecutorTimeS: totals.executorRunTimeMs / 1000,
    spillBytes: totals.diskBytesSpilled,
    peakMemoryGib: peakMemoryGibOf(run.profile),
    inputBytes: inputBytesOf(run),
  };
}

/** One run as the optimizer sees it; runtime and cost scaled to the latest input size (data grows). */
function observationOf(run: RecommenderRun, choice: ClusterChoice, latestInputBytes: number): Observation {
  const input = inputBytesOf(run);
  const scale = input > 0 && latestInputBytes > 0 ? latestInputBytes / input : 1;
  const completed = runCompleted(run);
  return {
    candidateId: choiceId(choice),
    runtimeS: runtimeSecondsOf(run.profile) * scale,
    costUsd: run.cost.totalUsd * scale,
    completed,
    profile: profileFeatures(run),
  };
}

interface Segment {
  start: number;
  reason: string;
}

function stageNames(profile: RunProfile): string {
  return profile.stages
    .map((stage) => stage.name)
    .sort()
    .join('\u0000');
}

/**
 * Where the runs that still describe the job begin: a run starts a new segment when its stage structure
 * differs, its input size or task count leaves the range seen since the last rebase, or it ran on an
 * already-run configuration with a runtime far off the earlier runs there.
 */
export function segmentSinceRebase(
  runs: readonly RecommenderRun[],
  choices: readonly ClusterChoice[],
  settings: RebaseSettings,
): Segment {
  let start = 0;
  let reason = '';
  for (let i = 1; i < runs.length; i++) {
    const run = runs[i] as RecommenderRun;
    const seen = runs.slice(start, i);
    const change = changeOf(run, choices[i] as ClusterChoice, seen, choices.slice(start, i), settings);
    if (change) {
      start = i;
      reason = change;
    }
  }
  return { start, reason };
}

function changeOf(
  run: RecommenderRun,
  choice: ClusterChoice,
  seen: readonly RecommenderRun[],
  seenChoices: readonly ClusterChoice[],
  settings: RebaseSettings,
): string | null {
  const completedSeen = seen.filter(runCompleted);
  const id = choiceId(choice);
  const sameConfig = seen.filter(
    (entry, i) => runCompleted(entry) && choiceId(seenChoices[i] as ClusterChoice) === id,
  );
  if (!runCompleted(run) || completedSeen.length === 0) return null;
  const reference = completedSeen.at(-1) as RecommenderRun;
  if (stageNames(run.profile) !== stageNames(reference.profile)) {
    return `the stage structure changed (${reference.profile.stages.length} → ${run.profile.stages.length} stages)`;
  }
  const inputs = completedSeen.map(inputBytesOf).filter((bytes) => bytes > 0);
  const input = inputBytesOf(run);
  if (inputs.length > 0 && input > 0) {
    const low = Math.min(...inputs) / settings.inputGrowthFactor;
    const high = Math.max(...inputs) * settings.inputGrowthFactor;
    if (input < low || input > high) {
      return `the input moved to ${gib(input)} GiB, outside the ${gib(Math.min(...inputs))}–${gib(Math.max(...inputs))} GiB seen`;
    }
  }
  const tasks = completedSeen.map((entry) => entry.profile.totals.tasks);
  const runTasks = run.profile.totals.tasks;
  if (
    runTasks < Math.min(...tasks) / settings.taskCountFactor ||
    runTasks > Math.max(...tasks) * settings.taskCountFactor
  ) {
    return `the task count moved to ${runTasks}, outside the ${Math.min(...tasks)}–${Math.max(...tasks)} seen`;
  }
  if (sameConfig.length > 0) {
    const perByte = (entry: RecommenderRun) =>
      runtimeSecondsOf(entry.profile) / Math.max(1, inputBytesOf(entry));
    const expected = sameConfig.reduce((sum, entry) => sum + perByte(entry), 0) / sameConfig.length;
    const deviation = perByte(run) / expected - 1;
    if (Math.abs(deviation) > settings.runtimeAnomaly) {
      return `the runtime on an unchanged configuration moved ${signedPercent(deviation)} from its earlier runs`;
    }
  }
  return null;
}

const gib = (bytes: number) => (bytes / 2 ** 30).toFixed(1);
const signedPercent = (fraction: number) => `${fraction >= 0 ? '+' : ''}${Math.round(fraction * 100)}%`;

interface WhatIfSummary {
  text: string;
}

/**
 * The based-on run's what-if replay as a runtime surface of this very job over worker counts on its own
 * node type: the model borrows its scale-out shape, as it borrows fleet jobs' shapes.
 */
function whatIfAnalog(
  prior: FleetPrior,
  space: CandidateSpace,
  current: ClusterChoice,
  run: RecommenderRun,
): { model: RuntimeAnalog; summary: WhatIfSummary } | undefined {
  if (!runCompleted(run)) return undefined;
  const base = space.byId.get(choiceId(current))?.candidate;
  const observed = run.profile.whatIf.find((point) => point.observed);
  if (!base || !observed || observed.estimatedDurationMs <= 0) return undefined;
  const runtimeS = runtimeSecondsOf(run.profile);
  const measured = run.profile.whatIf
    .filter((point) => point.estimatedDurationMs > 0)
    .map((point) => {
      const candidate: Candidate = { ...base, id: `what-if:${point.executors}`, nodes: point.executors };
      return {
        candidate,
        logRuntime: Math.log((runtimeS * point.estimatedDurationMs) / observed.estimatedDurationMs),
      };
    });
  if (measured.length < 2) return undefined;
  const model = new RuntimeAnalog({
    space: prior.space,
    beta: fitScaleOut(prior, measured),
    measured: measured.map((entry) => ({ ...entry, runs: 1 })),
    failureRates: [],
    residualVariance: prior.residualVariance,
    kernel: prior.kernel,
    noiseVariance: undefined,
    fallbackNoiseVariance: prior.noise.variances[0] ?? 1e-4,
    priorWeight: 1 / Math.max(1, prior.analogs.length),
    source: `run ${run.externalRunId}'s replay`,
  });
  const widest = run.profile.whatIf.at(-1) as (typeof run.profile.whatIf)[number];
  const dominant = dominantStage(run.profile);
  const stageText = dominant
    ? `stage ${dominant.stageId} holds ${Math.round(dominant.share * 100)}% of task time (${dominant.tasks} tasks); `
    : '';
  return {
    model,
    summary: {
      text:
        `${stageText}replaying run ${run.externalRunId}'s tasks on ${widest.executors} workers predicts ` +
        `${minutes(widest.estimatedDurationMs / 1000)} min vs ${minutes(observed.estimatedDurationMs / 1000)} min on ${observed.executors}`,
    },
  };
}

/** Scale-out terms of the fit over cores (Ernest's work/cores and its curvature) on the replayed points. */
const scaleOutTerms = ['intercept', 'log2Cores', 'log2CoresSquared'];

/**
 * The prior's coefficients with the intercept and the cores terms least-squares fitted to the replay, so
 * the surface carries the job's own level and scale-out slope to node sizes the replay did not cover.
 */
function fitScaleOut(
  prior: FleetPrior,
  measured: ReadonlyArray<{ candidate: Candidate; logRuntime: number }>,
): number[] {
  const beta = [...prior.mean];
  const distinct = new Set(measured.map((entry) => entry.candidate.nodes)).size;
  const terms = scaleOutTerms.slice(0, Math.min(scaleOutTerms.length, distinct));
  const indices = terms.map((name) => prior.space.names.indexOf(name));
  const rows = measured.map((entry) => prior.space.basis(entry.candidate));
  const targets = measured.map((entry, i) => {
    const row = rows[i] as Float64Array;
    let fixed = 0;
    for (let k = 0; k < row.length; k++)
      if (!indices.includes(k)) fixed += (row[k] as number) * (beta[k] as number);
    return entry.logRuntime - fixed;
  });
  const design = new Matrix(rows.map((row) => indices.map((k) => row[k] as number)));
  const ridge = Matrix.eye(indices.length).mul(1e-6);
  const normal = design.transpose().mmul(design).add(ridge);
  const solution = solve(normal, design.transpose().mmul(Matrix.columnVector(targets)));
  indices.forEach((k, i) => {
    beta[k] = solution.get(i, 0);
  });
  return beta;
}

function dominantStage(profile: RunProfile): { stageId: number; share: number; tasks: number } | undefined {
  const total = profile.stages.reduce((sum, stage) => sum + stage.executorRunTimeMs, 0);
  if (total <= 0) return undefined;
  let best = profile.stages[0];
  for (const stage of profile.stages)
    if (stage.executorRunTimeMs > (best?.executorRunTimeMs ?? 0)) best = stage;
  return best
    ? { stageId: best.stageId, share: best.executorRunTimeMs / total, tasks: best.numTasks }
    : undefined;
}

interface Chosen {
  entry: SpaceEntry;
  costUsd: { low: number; mid: number; high: number };
  note: string | null;
}

/** Spot saves money but interruptions inflate runtime: a tight SLA takes the on-demand twin instead. */
export function withSpotRisk(
  space: CandidateSpace,
  recommendation: Recommendation,
  settings: ProjectSettings,
): Chosen {
  const entry = space.byId.get(recommendation.candidateId) as SpaceEntry;
  const costUsd = recommendation.predictedCostUsd;
  const tight = settings.slaMinutes !== null && recommendation.probabilityMeetsSla < spotMinSlaConfidence;
  if (entry.choice.market === 'on-demand' || !tight) return { entry, costUsd, note: null };
  const twin = space.byId.get(choiceId({ ...entry.choice, market: 'on-demand', firstOnDemand: 0 }));
  if (!twin) return { entry, costUsd, note: null };
  const ratio = twin.candidate.priceUsdPerNodeHour / entry.candidate.priceUsdPerNodeHour;
  return {
    entry: twin,
    costUsd: scaleRange(costUsd, ratio),
    note:
      `on-demand instead of spot: P(runtime ≤ SLA) is ${recommendation.probabilityMeetsSla.toFixed(2)}, ` +
      `below the ${spotMinSlaConfidence} a spot interruption could not spoil`,
  };
}

function scaleRange(range: { low: number; mid: number; high: number }, factor: number) {
  return { low: range.low * factor, mid: range.mid * factor, high: range.high * factor };
}

const availabilityNames: Record<Market, string> = {
  'on-demand': 'ON_DEMAND',
  spot: 'SPOT',
  'spot-with-fallback': 'SPOT_WITH_FALLBACK',
};

/** The `new_cluster` fields apply writes: only fields Setpoint manages. */
export function fragmentOf(choice: ClusterChoice): NewClusterFragment {
  const fragment: NewClusterFragment = {
    node_type_id: choice.workerNodeType,
    driver_node_type_id: choice.driverNodeType,
    runtime_engine: choice.photon ? 'PHOTON' : 'STANDARD',
  };
  if (choice.autoscale) {
    fragment.autoscale = {
      min_workers: choice.autoscale.minWorkers,
      max_workers: choice.autoscale.maxWorkers,
    };
  } else {
    fragment.num_workers = choice.workers;
  }
  const availability = `${availabilityNames[choice.market]}${choice.cloud === 'azure' ? '_AZURE' : ''}`;
  const attributes = { availability, first_on_demand: choice.firstOnDemand };
  if (choice.cloud === 'azure') fragment.azure_attributes = attributes;
  else fragment.aws_attributes = attributes;
  return fragment;
}

const minutes = (seconds: number) => (seconds / 60).toFixed(1);

function explanationOf(parts: {
  recommendation: Recommendation;
  phase: string;
  rebaseReason: string | null;
  basedOn: RecommenderRun;
  analog: WhatIfSummary | null;
  spotNote: string | null;
  currentCostUsd: number;
}): string {
  const { recommendation } = parts;
  const learning =
    parts.phase === 'LEARNING'
      ? `learning run ${recommendation.currentLearningIteration + 1} of ${recommendation.totalLearningIterations}`
      : `${parts.phase.toLowerCase()} (learning ${recommendation.currentLearningIteration}/${recommendation.totalLearningIterations} done)`;
  const sentences = [
    `${learning}.`,
    parts.rebaseReason ? `Rebasing: ${parts.rebaseReason}; earlier runs no longer describe the job.` : null,
    parts.analog ? `${parts.analog.text}.` : null,
    `${recommendation.explanation}.`,
    `Run ${parts.basedOn.externalRunId} took ${minutes(runtimeSecondsOf(parts.basedOn.profile))} min for $${parts.currentCostUsd.toFixed(2)}.`,
    parts.spotNote ? `${parts.spotNote}.` : null,
  ];
  return sentences.filter((sentence): sentence is string => sentence !== null).join(' ');
}
