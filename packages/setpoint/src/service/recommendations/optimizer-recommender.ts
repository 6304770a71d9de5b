import type { ProjectSettings } from '@setpoint/api-contract';
import { ValidationError } from '@setpoint/foundation/errors';
import { instanceFamily } from '../../optimizer/config-features.js';
import { type FleetPrior, uninformedPrior } from '../../optimizer/fleet-prior.js';
import { JobOptimizer, type OptimizerSettings, type Recommendation } from '../../optimizer/recommend.js';
import type { Candidate, Range } from '../../optimizer/types.js';
import type { WorkspaceFacts } from '../workspaces/workspace-service.js';
import { type CandidateFilter, type FilterOutcome, FilterTally } from './candidate-filters.js';
import { defaultRebaseSettings, type RebaseSettings, segmentSinceRebase } from './rebase.js';
import type {
  ClusterConfiguration,
  RecommendationInput,
  RecommendationOutput,
  Recommender,
  RecommenderRun,
} from './recommender.js';
import {
  inputBytesOf,
  observationOf,
  runCompleted,
  runtimeFloorSeconds,
  runtimeSecondsOf,
} from './run-evidence.js';
import { type WhatIfSummary, whatIfAnalog } from './what-if-analog.js';

/** One candidate configuration of a platform's cluster: the optimizer's view of it and the platform's. */
export interface ShapeEntry<Shape> {
  candidate: Candidate;
  shape: Shape;
  /** False for configurations the project's bounds forbid (kept so past runs on them can be learned from). */
  allowed: boolean;
}

export interface CandidateSpace<Shape> {
  entries: ShapeEntry<Shape>[];
  byId: Map<string, ShapeEntry<Shape>>;
  /** Families (as the optimizer names them) the project allows. */
  allowedFamilies: string[];
  /** What the platform's candidate filters left out while building the space. */
  filtered: FilterOutcome[];
}

/**
 * A platform's clusters as the recommender sees them (a Databricks job cluster; EMR instance groups
 * or fleets): how a run's configuration is parsed once into a shape, which shapes are candidates, and
 * what applying one writes. Everything else about recommending is the same for every platform.
 */
export interface ClusterModel<Shape> {
  /** The shape a past run used: its reported configuration where it speaks, its facts where it is silent. */
  shapeOfRun(run: RecommenderRun, workspace: WorkspaceFacts | null): Shape;
  shapeId(shape: Shape): string;
  /** Priced candidates around the current shape; every observed shape is in it, allowed or not. */
  candidateSpace(context: {
    basedOn: RecommenderRun;
    workspace: WorkspaceFacts | null;
    settings: ProjectSettings;
    current: Shape;
    observed: readonly Shape[];
  }): CandidateSpace<Shape>;
  /** The same cluster all on-demand (what a tight SLA takes instead of spot); null when it is already. */
  onDemandTwin(shape: Shape): Shape | null;
  /** What apply writes for a shape, in the platform's terms. */
  configurationOf(shape: Shape): ClusterConfiguration;
}

/**
 * A job in production runs on what Setpoint recommends: after LEARNING, an untried configuration must be
 * as likely to meet the SLA as any exploit (the optimizer's default, 0.7, suits offline search).
 */
export const serviceOptimizerSettings: Partial<OptimizerSettings> = { explorationConfidence: 0.9 };

/** A spot recommendation needs at least this P(runtime ≤ SLA); below it the on-demand twin is chosen. */
export const spotMinSlaConfidence = 0.97;

export interface OptimizerRecommenderOptions {
  /** What the fleet teaches; without one, an uninformed prior over the space's families. */
  prior?: FleetPrior;
  optimizer?: Partial<OptimizerSettings>;
  rebase?: Partial<RebaseSettings>;
}

/** The filters the core applies to every platform's candidates (each keeps what was tried and the current). */
function coreFilters(context: {
  tried: ReadonlySet<string>;
  currentId: string;
  minMemoryPerCore: number;
  implausible: ReadonlySet<string>;
}): CandidateFilter<Candidate>[] {
  const kept = (candidate: Candidate) =>
    context.tried.has(candidate.id) || candidate.id === context.currentId;
  return [
    {
      name: 'spill-memory',
      reject: (candidate) =>
        kept(candidate) || candidate.memoryGibPerNode / candidate.vcpusPerNode >= context.minMemoryPerCore
          ? null
          : `${candidate.id} has less memory per core than a run that spilled`,
    },
    {
      name: 'critical-path-floor',
      reject: (candidate) =>
        kept(candidate) || !context.implausible.has(candidate.id)
          ? null
          : `${candidate.id} is predicted faster than the critical path allows`,
    },
  ];
}

/**
 * A run that spilled needed more execution memory per task than its cores had: configurations with less
 * memory per core would spill more and, past the unspillable share, fail. They are not tried.
 */
export function spillMemoryPerCore<Shape>(
  runs: readonly RecommenderRun[],
  ids: readonly string[],
  space: CandidateSpace<Shape>,
): number {
  let floor = 0;
  for (const [i, run] of runs.entries()) {
    const id = ids[i];
    if (id === undefined || !runCompleted(run) || run.profile.totals.diskBytesSpilled <= 0) continue;
    const candidate = space.byId.get(id)?.candidate;
    if (candidate) floor = Math.max(floor, candidate.memoryGibPerNode / candidate.vcpusPerNode);
  }
  return floor;
}

/**
 * The service's recommender for any platform: turns a project's runs into observations on a discrete
 * space of the platform's clusters, lets the based-on run's what-if replay tell the model how the job
 * scales out, filters candidates (the core's filters and the platform's), asks the optimizer for the next
 * configuration and returns it in the platform's terms. Pure: no I/O.
 */
export class OptimizerRecommender<Shape> implements Recommender {
  readonly #model: ClusterModel<Shape>;
  readonly #prior: FleetPrior | undefined;
  readonly #optimizer: Partial<OptimizerSettings>;
  readonly #rebase: RebaseSettings;

  constructor(model: ClusterModel<Shape>, options: OptimizerRecommenderOptions = {}) {
    this.#model = model;
    this.#prior = options.prior;
    this.#optimizer = { ...serviceOptimizerSettings, ...options.optimizer };
    this.#rebase = { ...defaultRebaseSettings, ...options.rebase };
  }

  async recommend(input: RecommendationInput): Promise<RecommendationOutput> {
    return this.recommendNow(input);
  }

  /** The same decision, synchronously (the bench calls it thousands of times). */
  recommendNow(input: RecommendationInput): RecommendationOutput {
    const model = this.#model;
    const { settings, workspace } = input.project;
    const basedOnIndex = input.runs.findIndex((run) => run.id === input.basedOnRunId);
    const basedOn = input.runs[basedOnIndex];
    if (!basedOn) {
      throw new ValidationError('RUN_NOT_PROFILED', `run ${input.basedOnRunId} has no profile and cost yet`);
    }
    const runs = input.runs.slice(0, basedOnIndex + 1);
    const shapes = runs.map((run) => model.shapeOfRun(run, workspace));
    const ids = shapes.map((shape) => model.shapeId(shape));
    const current = shapes.at(-1) as Shape;
    const currentId = ids.at(-1) as string;
    const space = model.candidateSpace({ basedOn, workspace, settings, current, observed: shapes });
    const segment = segmentSinceRebase(runs, ids, this.#rebase);
    const rebasing = segment.start === runs.length - 1 && runs.length > 1;
    const latestInput = inputBytesOf(basedOn);
    const observations = runs
      .slice(segment.start)
      .map((run, i) => observationOf(run, ids[segment.start + i] as string, latestInput));
    const candidates = space.entries.map((entry) => entry.candidate);
    const families = candidates.map((candidate) => candidate.instanceType);
    const basePrior = this.#prior ?? uninformedPrior(families.map(instanceFamily));
    const analog = whatIfAnalog(basePrior, space.byId.get(currentId)?.candidate, basedOn);
    const prior = analog ? { ...basePrior, analogs: [...basePrior.analogs, analog.model] } : basePrior;
    const optimizerSettings = { ...this.#optimizer, preference: settings.preference };
    const floorS = runtimeFloorSeconds(basedOn.profile);
    const tried = new Set(observations.map((observation) => observation.candidateId));
    const minMemoryPerCore = spillMemoryPerCore(runs.slice(segment.start), ids.slice(segment.start), space);
    const request = (pool: readonly Candidate[]) => ({
      candidates: pool,
      observations,
      currentCandidateId: currentId,
      ...(settings.slaMinutes === null ? {} : { slaSeconds: settings.slaMinutes * 60 }),
      bounds: {
        allowedFamilies: space.allowedFamilies,
        minNodes: Math.max(1, settings.minWorkers),
        maxNodes: settings.maxWorkers,
      },
    });
    const filterContext = { tried, currentId, minMemoryPerCore, implausible: new Set<string>() };
    const filters = new FilterTally(coreFilters(filterContext));
    let pool = candidates.filter((candidate) => filters.keeps(candidate));
    // The model may extrapolate below what the critical path allows: such untried configurations are dropped.
    const screening = new JobOptimizer(prior, pool, optimizerSettings).assess(request(pool));
    for (const entry of screening.assessments) {
      if (!tried.has(entry.candidate.id) && screening.mixture.quantile(entry.index, 0.5) < floorS)
        filterContext.implausible.add(entry.candidate.id);
    }
    pool = pool.filter((candidate) => filters.keeps(candidate));
    const recommendation = new JobOptimizer(prior, pool, optimizerSettings).recommend(request(pool));
    const chosen = withSpotRisk(model, space, recommendation, settings);
    const phase = rebasing ? 'REBASING' : recommendation.phase;
    return {
      phase,
      configuration: model.configurationOf(chosen.entry.shape),
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
      filtered: [...space.filtered, ...filters.outcomes],
    };
  }
}

interface Chosen<Shape> {
  entry: ShapeEntry<Shape>;
  costUsd: Range;
  note: string | null;
}

/** Spot saves money but interruptions inflate runtime: a tight SLA takes the on-demand twin instead. */
export function withSpotRisk<Shape>(
  model: Pick<ClusterModel<Shape>, 'onDemandTwin' | 'shapeId'>,
  space: CandidateSpace<Shape>,
  recommendation: Recommendation,
  settings: ProjectSettings,
): Chosen<Shape> {
  const entry = space.byId.get(recommendation.candidateId) as ShapeEntry<Shape>;
  const costUsd = recommendation.predictedCostUsd;
  const tight = settings.slaMinutes !== null && recommendation.probabilityMeetsSla < spotMinSlaConfidence;
  const twinShape = model.onDemandTwin(entry.shape);
  if (!twinShape || !tight) return { entry, costUsd, note: null };
  const twin = space.byId.get(model.shapeId(twinShape));
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

function scaleRange(range: Range, factor: number): Range {
  return { low: range.low * factor, mid: range.mid * factor, high: range.high * factor };
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
