import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ProjectPhase } from '@setpoint/api-contract';
import { ValidationError } from '@setpoint/foundation/errors';
import { instanceFamily } from '../../optimizer/config-features.js';
import { type FleetJob, type FleetPrior, uninformedPrior } from '../../optimizer/fleet-prior.js';
import {
  defaultOptimizerSettings,
  type MarketSwaps,
  type OptimizerSettings,
  type Recommendation,
  type RecommendationBasis,
  swappedForTwin,
} from '../../optimizer/recommend.js';
import type { Candidate, Observation, Range } from '../../optimizer/types.js';
import { runName } from '../runs/run-name.js';
import type { WorkspaceFacts } from '../workspaces/workspace-service.js';
import { type CandidateFilter, FilterTally } from './candidate-filters.js';
import type { CandidateSpace, ClusterModel, ShapeEntry } from './cluster-model.js';
import {
  allowedTrials,
  decide,
  explanationOf,
  slaFeasibleConfidence,
  spotMinSlaConfidence,
} from './decision.js';
import { type FleetPriorSource, sharedFleetPriorSource } from './fleet-prior-source.js';
import { type FoldedStatistics, foldRuns, summarizedConfigurations } from './learning-summary.js';
import { calibratePrices, withObservedPrices } from './observed-pricing.js';
import { type OptimizerPassInput, type OptimizerPassResult, runOptimizerPass } from './optimizer-pass.js';
import { runOptimizerPassOffThread } from './optimizer-pass-off-thread.js';
import { defaultRebaseSettings, type RebaseSettings, type Segment, segmentSinceRebase } from './rebase.js';
import type {
  FleetProjectHistory,
  FoldInput,
  RecommendationDecision,
  RecommendationInput,
  RecommendationOutput,
  Recommender,
} from './recommender.js';
import type { RecommenderRun } from './recommender-run.js';
import {
  inputBytesOf,
  observationOf,
  overheadSecondsOf,
  runCompleted,
  runtimeFloorSeconds,
} from './run-evidence.js';
import { describeSignals, highGcShare, highShuffleFetchWaitShare, runSignalsOf } from './run-signals.js';
import { whatIfAnalog } from './what-if-analog.js';

export interface OptimizerRecommenderOptions {
  /**
   * What the fleet teaches: a fixed prior (benchmarks, tests), else the fleet prior source (the shipped
   * fleet with the organization's projects, learned once and cached); `null` forces an uninformed prior.
   */
  prior?: FleetPrior | null;
  priorSource?: FleetPriorSource;
  optimizer?: Partial<OptimizerSettings>;
  rebase?: Partial<RebaseSettings>;
  /**
   * Where the model is fitted: by default on a worker thread when the prior comes from the fleet source
   * (the service), in-process with a fixed prior (benchmarks, tests).
   */
  optimizerPass?: OptimizerPassRunner;
}

export type OptimizerPassRunner = (input: OptimizerPassInput) => Promise<OptimizerPassResult>;

const runInProcess: OptimizerPassRunner = async (input) => runOptimizerPass(input);

/** The cheapest configuration a job's runs and the fleet model make the optimizer confident in. */
export interface ConfidentChoice {
  current: { description: string; expectedCostUsd: number };
  /** Null when no allowed configuration reaches the confidence (the current one may not either). */
  choice: { description: string; expectedCostUsd: number; probabilityMeetsSla: number } | null;
  confidence: number;
  /** The SLA, or without one the runtime bound, the probabilities are against; null while there is no bound. */
  slaSeconds: number | null;
  hasSla: boolean;
  basis: RecommendationBasis;
}

/** What `#prepare` hands to the optimizer pass and, with the pass's answer, to `#finish`. */
interface Prepared<Shape> {
  input: RecommendationInput;
  basedOn: RecommenderRun;
  space: CandidateSpace<Shape>;
  segment: Segment;
  rebasing: boolean;
  observations: Observation[];
  /** The job's median billed time outside the Spark application, priced at each candidate's rate. */
  overheadSeconds: number;
  analog: ReturnType<typeof whatIfAnalog>;
  currentId: string;
  /** Whether the project allows a candidate (the platform's space and the project's bounds): what decisions choose from. */
  allowed: (candidate: Candidate) => boolean;
  filters: FilterTally<Candidate>;
  /** The core filters' context; the pass's implausible and swapped-for-twin configurations are added to it. */
  filterContext: { implausible: Set<string>; lacksSpotMargin: Set<string> };
  pool: Candidate[];
  signals: ReturnType<typeof runSignalsOf>;
  pass: OptimizerPassInput;
}

/** The filters the core applies to every platform's candidates (each keeps what was tried and the current). */
function coreFilters(context: {
  tried: ReadonlySet<string>;
  currentId: string;
  minMemoryPerCore: number;
  gcMemoryPerCore: number;
  /** Nodes and vCPUs per node of a network-bound based-on run (high shuffle fetch wait), else null. */
  networkBound: { nodes: number; vcpusPerNode: number } | null;
  implausible: ReadonlySet<string>;
  /** Spot candidates the service would swap for their on-demand twin (`MarketSwaps`), from the pass. */
  lacksSpotMargin: ReadonlySet<string>;
  /** A candidate in the platform's words ("3 × m6gd.xlarge, spot with fallback, Photon"), for the examples. */
  describe: (candidate: Candidate) => string;
}): CandidateFilter<Candidate>[] {
  const kept = (candidate: Candidate) =>
    context.tried.has(candidate.id) || candidate.id === context.currentId;
  const memoryPerCore = (candidate: Candidate) => candidate.memoryGibPerNode / candidate.vcpusPerNode;
  const { networkBound } = context;
  return [
    {
      name: 'spill-memory',
      reject: (candidate) =>
        kept(candidate) || memoryPerCore(candidate) >= context.minMemoryPerCore
          ? null
          : `${context.describe(candidate)} has less memory per core than a run that spilled`,
    },
    {
      name: 'gc-memory',
      reject: (candidate) =>
        kept(candidate) || memoryPerCore(candidate) >= context.gcMemoryPerCore
          ? null
          : `${context.describe(candidate)} has less memory per core than a run whose tasks spent ${Math.round(highGcShare * 100)}% or more of their time in GC`,
    },
    {
      name: 'network-bound',
      reject: (candidate) =>
        kept(candidate) ||
        !networkBound ||
        candidate.nodes <= networkBound.nodes ||
        candidate.vcpusPerNode >= networkBound.vcpusPerNode
          ? null
          : `${context.describe(candidate)} spreads a network-bound run (shuffle fetch wait ≥ ${Math.round(highShuffleFetchWaitShare * 100)}% of task time) over more, smaller nodes`,
    },
    {
      name: 'critical-path-floor',
      reject: (candidate) =>
        kept(candidate) || !context.implausible.has(candidate.id)
          ? null
          : `${context.describe(candidate)} is predicted faster than the critical path allows`,
    },
    {
      // the current configuration is never in the set: whether it moves to its twin is the decision's rule
      name: 'spot-margin',
      reject: (candidate) =>
        context.lacksSpotMargin.has(candidate.id)
          ? `${context.describe(candidate)} is likely to meet the SLA but without the margin (P ≥ ${spotMinSlaConfidence}) a spot interruption eats: it would run as its dearer on-demand twin, which is judged instead`
          : null,
    },
  ];
}

/**
 * The spot candidates the service would swap for their on-demand twin (`decide`'s interruption-risk rule),
 * in the optimizer's terms: those whose twin is an allowed candidate of the space. A market the platform
 * never changes has no twin, and a twin it may not run is no swap.
 */
export function marketSwapsOf<Shape>(
  model: Pick<ClusterModel<Shape>, 'onDemandTwin' | 'shapeId'>,
  space: CandidateSpace<Shape>,
): MarketSwaps {
  const twins: Record<string, string> = {};
  for (const entry of space.entries) {
    const twinShape = model.onDemandTwin(entry.shape);
    const twin = twinShape ? space.byId.get(model.shapeId(twinShape)) : undefined;
    if (twin?.allowed) twins[entry.candidate.id] = twin.candidate.id;
  }
  return { twins, minConfidence: spotMinSlaConfidence, feasibleConfidence: slaFeasibleConfidence };
}

/**
 * The memory per core of the largest configuration among completed runs that showed memory pressure
 * (`pressed`): configurations with less would press harder and, past the unspillable share, fail.
 */
function pressureMemoryPerCore<Shape>(
  runs: readonly RecommenderRun[],
  ids: readonly string[],
  space: CandidateSpace<Shape>,
  pressed: (run: RecommenderRun) => boolean,
): number {
  let floor = 0;
  for (const [i, run] of runs.entries()) {
    const id = ids[i];
    if (id === undefined || !runCompleted(run) || !pressed(run)) continue;
    const candidate = space.byId.get(id)?.candidate;
    if (candidate) floor = Math.max(floor, candidate.memoryGibPerNode / candidate.vcpusPerNode);
  }
  return floor;
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
  return pressureMemoryPerCore(runs, ids, space, (run) => run.profile.totals.diskBytesSpilled > 0);
}

/** The same for runs whose tasks spent a high share of their time in garbage collection. */
export function gcMemoryPerCore<Shape>(
  runs: readonly RecommenderRun[],
  ids: readonly string[],
  space: CandidateSpace<Shape>,
): number {
  return pressureMemoryPerCore(
    runs,
    ids,
    space,
    (run) => (runSignalsOf(run.profile).gcShare ?? 0) >= highGcShare,
  );
}

/**
 * The service's recommender for any platform: turns a project's runs into observations on a discrete
 * space of the platform's clusters (priced as its runs showed), lets the based-on run's what-if replay tell
 * the model how the job scales out, passes candidates through the chain of named filters (the core's and
 * the platform's), asks the optimizer for the next configuration, then takes the service's decisions on
 * top of it — an infeasible SLA, spot risk, what tried configurations cost — into one `Decision` that the
 * configuration, prediction and explanation are all read from. Pure: no I/O besides the fleet source.
 */
export class OptimizerRecommender<Shape, Reads = unknown> implements Recommender {
  readonly #model: ClusterModel<Shape, Reads>;
  readonly #prior: FleetPrior | null | undefined;
  readonly #priorSource: FleetPriorSource;
  readonly #optimizer: Partial<OptimizerSettings>;
  readonly #rebase: RebaseSettings;
  readonly #runPass: OptimizerPassRunner | undefined;

  constructor(model: ClusterModel<Shape, Reads>, options: OptimizerRecommenderOptions = {}) {
    this.#model = model;
    this.#prior = options.prior;
    this.#priorSource = options.priorSource ?? sharedFleetPriorSource();
    this.#optimizer = { ...options.optimizer };
    this.#rebase = { ...defaultRebaseSettings, ...options.rebase };
    this.#runPass = options.optimizerPass;
  }

  async recommend(input: RecommendationInput): Promise<RecommendationOutput> {
    const reads = await this.#read(input);
    const prior =
      this.#prior !== undefined
        ? undefined
        : await this.#priorSource.priorFor(input.project.id, input.fleet, (history) =>
            this.fleetJobOf(history),
          );
    // Each step below is tens of milliseconds of CPU on an idle core, many times that on a loaded one:
    // between them the event loop answers what waits (health checks, lease heartbeats, the API).
    await nextTurn();
    const prepared = this.#prepare(input, prior, reads);
    await nextTurn();
    const runPass = this.#runPass ?? (prior === undefined ? runInProcess : runOptimizerPassOffThread);
    const pass = await runPass(prepared.pass);
    await nextTurn();
    return this.#finish(prepared, pass);
  }

  /** What the platform reads before recommending on the input's based-on run (`ClusterModel.prepare`). */
  async #read(input: RecommendationInput): Promise<Reads | null> {
    const basedOn = input.runs.find((run) => run.id === input.basedOnRunId);
    if (!basedOn || !this.#model.prepare) return null;
    return this.#model.prepare(input, basedOn);
  }

  /** Runs that left the project's window added to its learning summary, each on its candidate id. */
  async fold(input: FoldInput): Promise<FoldedStatistics> {
    // A run without a cluster has no candidate to fold onto: the summary stays as it is.
    if (this.#model.clusterless && input.runs.some(this.#model.clusterless)) return input.folded;
    const { ran } = shapesOfRuns(this.#model, input.runs, input.project.workspace);
    const ids = ran.map((shape) => this.#model.shapeId(shape));
    return foldRuns(input.folded, input.runs, ids, this.#rebase);
  }

  /** Another project's runs as a fleet job on this model's candidates (null when they cannot be read). */
  fleetJobOf(history: FleetProjectHistory): FleetJob | null {
    const runs = history.runs;
    const basedOn = runs.at(-1);
    if (!basedOn) return null;
    // A job that ran without a cluster teaches the fleet nothing about clusters.
    if (this.#model.clusterless && runs.some(this.#model.clusterless)) return null;
    try {
      const { configured, ran } = shapesOfRuns(this.#model, runs, history.workspace);
      const ids = ran.map((shape) => this.#model.shapeId(shape));
      const space = this.#model.candidateSpace({
        basedOn,
        workspace: history.workspace,
        settings: history.settings,
        current: configured.at(-1) as Shape,
        observed: ran,
        reads: null,
      });
      const latest = inputBytesOf(basedOn);
      const observations = runs.map((run, i) => observationOf(run, ids[i] as string, latest));
      const tried = new Set(ids);
      const candidates = space.entries
        .filter((entry) => tried.has(entry.candidate.id))
        .map((entry) => entry.candidate);
      return { candidates, observations: observations.filter((o) => tried.has(o.candidateId)) };
    } catch {
      return null;
    }
  }

  /**
   * What a job could save, read from the optimizer pass a first recommendation runs on its runs and the
   * fleet model: the cheapest configuration the filters keep that it expects to meet the SLA (without one,
   * the runtime bound: the best seen runtime plus `maxRuntimeIncrease`) with probability at least
   * `confidence`, to fail no more often than the current one, and that a spot margin would not swap for
   * its twin. Nothing is recorded and nothing is learned: Discover estimates jobs not imported yet with it.
   */
  async confidentChoice(input: RecommendationInput): Promise<ConfidentChoice> {
    const reads = await this.#read(input);
    const prior =
      this.#prior !== undefined
        ? undefined
        : await this.#priorSource.priorFor(input.project.id, input.fleet, (history) =>
            this.fleetJobOf(history),
          );
    const prepared = this.#prepare(input, prior, reads);
    const runPass = this.#runPass ?? (prior === undefined ? runInProcess : runOptimizerPassOffThread);
    // no decision follows: the engine trials' quantiles would not be read
    const { engineTrials: _unread, ...pass } = prepared.pass;
    const { assessment, recommendation } = await runPass(pass);
    const { confidence } = { ...defaultOptimizerSettings, ...this.#optimizer };
    const { space, currentId, allowed } = prepared;
    const describe = (id: string) => {
      const entry = space.byId.get(id);
      return entry ? this.#model.describe(entry.shape) : id;
    };
    const current = assessment.current;
    const swaps = prepared.pass.request.marketSwaps;
    const [cheapest] = assessment.assessments
      .filter(
        (entry) =>
          allowed(entry.candidate) &&
          entry.probabilityMeetsSla >= confidence &&
          entry.probabilityFails <= current.probabilityFails &&
          !swappedForTwin(entry, assessment, swaps),
      )
      .sort((a, b) => a.expectedCostUsd - b.expectedCostUsd);
    return {
      current: { description: describe(currentId), expectedCostUsd: current.expectedCostUsd },
      choice: cheapest
        ? {
            description: describe(cheapest.candidate.id),
            expectedCostUsd: cheapest.expectedCostUsd,
            probabilityMeetsSla: cheapest.probabilityMeetsSla,
          }
        : null,
      confidence,
      slaSeconds: Number.isFinite(assessment.slaSeconds) ? assessment.slaSeconds : null,
      hasSla: assessment.hasSla,
      basis: recommendation.basis,
    };
  }

  /**
   * The same decision, synchronously and in-process (the bench calls it thousands of times), with what
   * the platform reads given (`reads`) or, by default, nothing read.
   */
  recommendNow(
    input: RecommendationInput,
    learnedPrior?: FleetPrior,
    reads: Reads | null = null,
  ): RecommendationOutput {
    const prepared = this.#prepare(input, learnedPrior, reads);
    return this.#finish(prepared, runOptimizerPass(prepared.pass));
  }

  /** Everything before the optimizer: shapes, the candidate space, observations, filters, the prior. */
  #prepare(
    input: RecommendationInput,
    learnedPrior: FleetPrior | undefined,
    reads: Reads | null,
  ): Prepared<Shape> {
    const model = this.#model;
    const { settings, workspace } = input.project;
    const basedOnIndex = input.runs.findIndex((run) => run.id === input.basedOnRunId);
    const basedOn = input.runs[basedOnIndex];
    if (!basedOn) {
      throw new ValidationError('RUN_NOT_PROFILED', `run ${input.basedOnRunId} has no profile and cost yet`);
    }
    const runs = input.runs.slice(0, basedOnIndex + 1);
    // runs are learned under the hardware that ran; the current configuration is what the job asks for
    const { configured, ran } = shapesOfRuns(model, runs, workspace);
    const ids = ran.map((shape) => model.shapeId(shape));
    const current = configured.at(-1) as Shape;
    const currentId = model.shapeId(current);
    const space = model.candidateSpace({ basedOn, workspace, settings, current, observed: ran, reads });
    const segment = segmentSinceRebase(runs, ids, this.#rebase, input.earlier?.segment);
    const rebasing = segment.start === runs.length - 1 && segment.reason !== '';
    const latestInput = inputBytesOf(basedOn);
    // Runs folded before the window teach the runtime model's conditioning alone, and only while no rebase
    // in the window cut them off: costs, prices, failures, filters and the learning budget read the window.
    const summarized =
      input.earlier && segment.reason === ''
        ? summarizedConfigurations(input.earlier.configurations, latestInput).filter((entry) =>
            space.byId.has(entry.candidateId),
          )
        : [];
    const observations = runs
      .slice(segment.start)
      .map((run, i) => observationOf(run, ids[segment.start + i] as string, latestInput));
    const kindOf = (candidate: Candidate) =>
      model.priceKind((space.byId.get(candidate.id) as ShapeEntry<Shape>).shape);
    const catalogCandidates = space.entries.map((entry) => entry.candidate);
    const candidates = withObservedPrices(
      catalogCandidates,
      calibratePrices(catalogCandidates, observations, kindOf),
      kindOf,
    );
    const basePrior = learnedPrior ?? this.#prior ?? uninformedPrior(candidates.map(instanceFamily));
    const analog = whatIfAnalog(basePrior, space.byId.get(currentId)?.candidate, basedOn);
    const optimizerSettings = {
      ...this.#optimizer,
      preference: settings.preference,
      learningMissBudget: settings.learningMissBudget,
    };
    const floorS = runtimeFloorSeconds(basedOn.profile);
    const tried = new Set(observations.map((observation) => observation.candidateId));
    const segmentRuns = runs.slice(segment.start);
    const segmentIds = ids.slice(segment.start);
    const overheadSeconds = overheadSecondsOf(segmentRuns);
    const minMemoryPerCore = spillMemoryPerCore(segmentRuns, segmentIds, space);
    const signals = runSignalsOf(basedOn.profile);
    const currentCandidate = space.byId.get(currentId)?.candidate;
    const networkBound =
      currentCandidate && (signals.shuffleFetchWaitShare ?? 0) >= highShuffleFetchWaitShare
        ? { nodes: currentCandidate.nodes, vcpusPerNode: currentCandidate.vcpusPerNode }
        : null;
    const bounds = {
      allowedFamilies: space.allowedFamilies,
      minNodes: Math.max(1, settings.minWorkers),
      maxNodes: settings.maxWorkers,
    };
    const allowed = (candidate: Candidate) =>
      space.byId.get(candidate.id)?.allowed === true &&
      candidate.nodes >= bounds.minNodes &&
      candidate.nodes <= bounds.maxNodes;
    const request = {
      observations,
      ...(summarized.length > 0 ? { summarized } : {}),
      currentCandidateId: currentId,
      ...(settings.slaMinutes === null
        ? {}
        : { slaSeconds: settings.slaMinutes * 60, marketSwaps: marketSwapsOf(model, space) }),
      bounds,
      overheadSeconds,
    };
    const filterContext = {
      tried,
      currentId,
      minMemoryPerCore,
      gcMemoryPerCore: gcMemoryPerCore(segmentRuns, segmentIds, space),
      networkBound,
      implausible: new Set<string>(),
      lacksSpotMargin: new Set<string>(),
      describe: (candidate: Candidate) => {
        const entry = space.byId.get(candidate.id);
        return entry ? model.describe(entry.shape) : candidate.id;
      },
    };
    const filters = new FilterTally(coreFilters(filterContext));
    const pool = candidates.filter((candidate) => filters.keeps(candidate));
    const trials = space.trials && allowedTrials(space, allowed, space.trials);
    return {
      input,
      basedOn,
      space,
      segment,
      rebasing,
      observations,
      overheadSeconds,
      analog,
      currentId,
      allowed,
      filters,
      filterContext,
      pool,
      signals,
      pass: {
        prior: basePrior,
        extraAnalogs: analog ? [analog.model] : [],
        pool,
        settings: optimizerSettings,
        request,
        floorS,
        tried: [...tried],
        ...(trials && {
          engineTrials: {
            baselineIds: trials.entries.map((trial) => trial.baselineId),
            allowedIds: pool.filter(allowed).map((candidate) => candidate.id),
            speedupOfJob: trials.speedup.ofJob,
          },
        }),
      },
    };
  }

  /** The optimizer's answer (from `runOptimizerPass`) turned into the service's decision and its words. */
  #finish(prepared: Prepared<Shape>, pass: OptimizerPassResult): RecommendationOutput {
    const model = this.#model;
    const { settings } = prepared.input.project;
    const {
      basedOn,
      space,
      segment,
      rebasing,
      observations,
      overheadSeconds,
      analog,
      currentId,
      allowed,
      filters,
      signals,
    } = prepared;
    const { recommendation, assessment } = pass;
    // The model may extrapolate below what the critical path allows: such untried configurations were
    // dropped by the pass; the filter chain counts them.
    for (const id of pass.implausible) prepared.filterContext.implausible.add(id);
    const swaps = prepared.pass.request.marketSwaps;
    for (const entry of assessment.assessments)
      if (swappedForTwin(entry, assessment, swaps))
        prepared.filterContext.lacksSpotMargin.add(entry.candidate.id);
    for (const candidate of prepared.pool) filters.keeps(candidate);
    const filtered = [...space.filtered, ...filters.outcomes];
    const decided = decide({
      model,
      space,
      recommendation,
      assessment,
      observations,
      overheadSeconds,
      currentId,
      settings,
      allowed,
      basedOn,
      trialQuantiles: pass.trialQuantiles,
    });
    // Whether this is a learning run is decided once, here, and recorded in the decision; the phase, the
    // explanation, the card and the benches read it from there. An engine trial is a learning run,
    // whatever phase the optimizer's own choice was in; a rebase starts learning over from this run, so
    // its recommendation is a learning run whenever the optimizer's first recommendation is one.
    const learningRun = recommendation.phase === 'LEARNING' || decided.trial !== null;
    const phase: ProjectPhase = rebasing
      ? 'REBASING'
      : learningRun
        ? 'LEARNING'
        : decided.entry.candidate.id === currentId
          ? 'MONITORING'
          : 'OPTIMIZING';
    const currentEntry = space.byId.get(currentId) as ShapeEntry<Shape>;
    const keep = decided.entry.candidate.id === currentId;
    const maxRuntimeIncrease = { ...defaultOptimizerSettings, ...this.#optimizer }.maxRuntimeIncrease;
    const decision: RecommendationDecision = {
      action: keep ? 'keep' : 'change',
      change: keep
        ? 'no change'
        : `${model.describe(currentEntry.shape)} → ${model.describe(decided.entry.shape)}`,
      sla:
        settings.slaMinutes === null
          ? Number.isFinite(recommendation.slaSeconds)
            ? {
                kind: 'none',
                limitSeconds: recommendation.slaSeconds,
                bestSeenSeconds: recommendation.slaSeconds / (1 + maxRuntimeIncrease),
              }
            : { kind: 'none', limitSeconds: null, bestSeenSeconds: null }
          : {
              kind: 'project',
              seconds: settings.slaMinutes * 60,
              probabilityMeets: decided.assessment.probabilityMeetsSla,
              feasible: decided.feasible,
              ...(decided.feasible ? {} : { fastestKnown: decided.fastestKnown }),
            },
      probabilityFails: decided.assessment.probabilityFails,
      basis: recommendation.basis,
      filtered,
      notes: [...decided.notes, describeSignals(runName(basedOn), signals)],
      ...(decided.trial ? { trial: decided.trial } : {}),
      learning: {
        active: learningRun,
        run: learningRun
          ? recommendation.currentLearningIteration + 1
          : recommendation.currentLearningIteration,
        maxRuns: recommendation.learningBudget.maxRuns,
        missBudget: recommendation.learningBudget.missBudget,
        missesSpent: recommendation.learningBudget.missesSpent,
        rebaseReason: rebasing ? segment.reason : null,
        // The service's later rules (an infeasible SLA, spot risk, an engine trial) may have chosen another
        // configuration: then it is not the optimizer's exploration.
        exploration:
          !learningRun &&
          recommendation.exploration &&
          decided.entry.candidate.id === recommendation.candidateId
            ? recommendation.exploration
            : null,
        expansion: expansionOf(recommendation, decided.entry.candidate.id, (id) => {
          const entry = space.byId.get(id);
          return entry ? model.describe(entry.shape) : id;
        }),
      },
    };
    return {
      phase,
      configuration: model.configurationOf(decided.entry.shape, basedOn.clusterConfig),
      prediction: {
        runtimeMinutes: scaleRange(decided.runtimeS, 1 / 60),
        costUsd: decided.costUsd,
      },
      explanation: explanationOf({
        decision,
        recommendation,
        phase,
        basedOn,
        analog: analog?.summary ?? null,
        runtimeS: decided.runtimeS,
        costUsd: decided.costUsd,
        currentCostUsd: basedOn.cost.totalUsd,
        currentDescription: model.describe(currentEntry.shape),
      }),
      filtered,
      decision,
    };
  }
}

function scaleRange(range: Range, factor: number): Range {
  return { low: range.low * factor, mid: range.mid * factor, high: range.high * factor };
}

/** The safe expansion behind the optimizer's learning run, when the service kept its choice. */
function expansionOf(
  recommendation: Recommendation,
  chosenId: string,
  describe: (candidateId: string) => string,
): { from: string; boundSeconds: number } | null {
  const { expansion } = recommendation;
  if (!expansion || recommendation.phase !== 'LEARNING' || chosenId !== recommendation.candidateId)
    return null;
  return { from: describe(expansion.fromCandidateId), boundSeconds: expansion.boundRuntimeS };
}

/**
 * Each run's configuration (`shapeOfRun`: what the job asked for, and keeping it writes) and the shape its
 * runtime and cost are learned under (`shapeThatRan`: the hardware that really ran, the same unless the
 * platform launched another).
 */
function shapesOfRuns<Shape>(
  model: Pick<ClusterModel<Shape>, 'shapeOfRun' | 'shapeThatRan'>,
  runs: readonly RecommenderRun[],
  workspace: WorkspaceFacts | null,
): { configured: Shape[]; ran: Shape[] } {
  const configured = runs.map((run) => model.shapeOfRun(run, workspace));
  const ran = runs.map((run, i) => {
    const asked = configured[i] as Shape;
    return model.shapeThatRan?.(run, asked) ?? asked;
  });
  return { configured, ran };
}
