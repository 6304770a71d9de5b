import type { ProjectSettings } from '@setpoint/api-contract';
import { median } from '@setpoint/foundation/statistics';
import { countOf } from '@setpoint/foundation/words';
import type { ModelProfile } from '../../eventlog/model-profile.js';
import {
  type Assessment,
  type CandidateAssessment,
  defaultOptimizerSettings,
  describeBasis,
  type Exploration,
  noRuntimeBoundYet,
  overheadCostUsd,
  predictedToMeetConfidence,
  type Recommendation,
} from '../../optimizer/recommend.js';
import {
  type Candidate,
  candidateRateUsdPerHour,
  type Observation,
  type Range,
} from '../../optimizer/types.js';
import { runName } from '../runs/run-name.js';
import { describeFiltered } from './candidate-filters.js';
import type { CandidateSpace, ClusterModel, EngineTrials, ShapeEntry } from './cluster-model.js';
import {
  chooseEngineTrial,
  type EngineTrialChoice,
  type TrialBaselineQuantiles,
  type TrialOverrunBound,
} from './engine-trial.js';
import type { RecommendationDecision } from './recommender.js';
import type { RecommenderRun } from './recommender-run.js';
import { runtimeSecondsOf } from './run-evidence.js';
import type { WhatIfSummary } from './what-if-analog.js';

/** A spot recommendation needs at least this P(runtime ≤ SLA); below it the on-demand twin is chosen. */
export const spotMinSlaConfidence = 0.97;

/**
 * Below this P(runtime ≤ SLA) a configuration is predicted to miss (its median runtime is over the SLA).
 * When every allowed candidate is below it, the SLA is infeasible: spending more buys no SLA.
 */
export const slaFeasibleConfidence = predictedToMeetConfidence;

/** Runs on a configuration after which its prediction is its observed median (before: a blend). */
export const runsToTrustObserved = 3;

export interface Decided<Shape> {
  entry: ShapeEntry<Shape>;
  assessment: CandidateAssessment;
  runtimeS: Range;
  costUsd: Range;
  feasible: boolean;
  /** With an infeasible SLA: the fastest configuration the job has run, by its median runtime. */
  fastestKnown: { description: string; runtimeSeconds: number } | null;
  notes: string[];
  /** Set when the decision is a trial run on an engine the job never ran (the SLA needs it). */
  trial: RecommendationDecision['trial'] | null;
}

/**
 * An engine trial is a learning run: it may cost what the optimizer lets one cost, a multiple of the
 * cheapest configuration the job has run.
 */
const maxTrialCostMultiple = defaultOptimizerSettings.maxLearningCostMultiple;

const minutes = (seconds: number) => (seconds / 60).toFixed(1);
const dollars = (usd: number) => usd.toFixed(2);
/** Cents are too coarse for what one exploration may save on a cheap job: two significant digits below $1. */
const smallDollars = (usd: number) => (Math.abs(usd) >= 1 ? usd.toFixed(2) : usd.toPrecision(2));

function minimumBy<T>(items: readonly T[], key: (item: T) => number): T | undefined {
  let best: T | undefined;
  for (const item of items) if (best === undefined || key(item) < key(best)) best = item;
  return best;
}

function scaleRange(range: Range, factor: number): Range {
  return { low: range.low * factor, mid: range.mid * factor, high: range.high * factor };
}

/** The stage that holds the largest share of task time, when it holds enough to explain a floor. */
export function dominantStage(profile: Pick<ModelProfile, 'stages'>): string | null {
  const total = profile.stages.reduce((sum, stage) => sum + stage.executorRunTimeMs, 0);
  const top = minimumBy(profile.stages, (stage) => -stage.executorRunTimeMs);
  if (!top || total <= 0) return null;
  const share = top.executorRunTimeMs / total;
  if (share < 0.3) return null;
  const skew = top.skewRatio >= 3 ? ` (skew: its longest task ${top.skewRatio.toFixed(1)}× the median)` : '';
  return `stage ${top.stageId} holds ${Math.round(share * 100)}% of task time${skew}`;
}

/** What a decision is made from: the model's view of the shapes, the candidates, the optimizer's assessment. */
export interface DecisionContext<Shape> {
  model: Pick<ClusterModel<Shape>, 'onDemandTwin' | 'shapeId' | 'describe'>;
  space: CandidateSpace<Shape>;
  recommendation: Recommendation;
  assessment: Assessment;
  observations: readonly Observation[];
  /** The job's billed time per run outside its runtime (`RecommendInput.overheadSeconds`); default 0. */
  overheadSeconds?: number;
  currentId: string;
  settings: ProjectSettings;
  allowed: (candidate: Candidate) => boolean;
  basedOn: RecommenderRun;
  /**
   * The engine trials' baseline quantiles, computed by the optimizer pass with the assessment
   * (`OptimizerPassResult.trialQuantiles`); a trial whose baseline is missing computes its own.
   */
  trialQuantiles?: TrialBaselineQuantiles;
}

/**
 * The service's decisions on top of the optimizer's choice, in order:
 * 1. an SLA no allowed candidate is predicted to meet is infeasible: never pay more and still miss —
 *    take the fastest candidate that costs no more than the cheapest configuration the job has run
 *    (the current one when none has), and say so;
 * 2. spot → on-demand only for interruption risk: when the SLA is likely met but without the margin a
 *    spot interruption eats, never when the SLA is lost anyway;
 * 3. a configuration that already ran predicts what it cost: its observed median, blended with the
 *    model's until it ran `runsToTrustObserved` times.
 * When the SLA is infeasible on the job's engine and the space kept trials of another engine aside,
 * one of them may be tried instead (`engineTrialOf`); when it is feasible and this is a learning run,
 * one may be tried for what it is expected to save (`savingsTrialOf`).
 */
export function decide<Shape>(context: DecisionContext<Shape>): Decided<Shape> {
  const decided = decideOnEngine(context);
  const { trials } = context.space;
  if (!trials) return decided;
  const sought = engineTrialSought({
    feasible: decided.feasible,
    phase: context.recommendation.phase,
    speedupOfJob: trials.speedup.ofJob,
  });
  if (sought === 'savings') return savingsTrialOf(context, trials, decided) ?? decided;
  if (sought === 'sla') return engineTrialOf(context, trials, decided);
  return decided;
}

/**
 * Which engine trial `decide` looks for after its decision on the job's engine: one for the SLA when no
 * allowed configuration is predicted to meet it (there is an SLA); one for savings during learning, with a
 * speed-up prior read from the job's own run (a generic prior says nothing of this job); else none. The
 * optimizer pass asks the same, to compute the trials' quantiles only when they will be read.
 */
export function engineTrialSought(terms: {
  feasible: boolean;
  phase: Recommendation['phase'];
  speedupOfJob: boolean;
}): 'sla' | 'savings' | null {
  if (!terms.feasible) return 'sla';
  return terms.phase === 'LEARNING' && terms.speedupOfJob ? 'savings' : null;
}

/** Whether some allowed configuration is predicted to meet the SLA (P(runtime ≤ SLA) ≥ `slaFeasibleConfidence`). */
export function slaFeasible(allowed: readonly CandidateAssessment[]): boolean {
  return allowed.some((entry) => entry.probabilityMeetsSla >= slaFeasibleConfidence);
}

/** The trials whose cluster is allowed and whose baseline (the same cluster on the job's engine) is too. */
export function allowedTrials<Shape>(
  space: Pick<CandidateSpace<Shape>, 'byId'>,
  allowed: (candidate: Candidate) => boolean,
  trials: EngineTrials<Shape>,
): EngineTrials<Shape> {
  return {
    ...trials,
    entries: trials.entries.filter((trial) => {
      const baseline = space.byId.get(trial.baselineId);
      return trial.entry.allowed && baseline !== undefined && allowed(baseline.candidate);
    }),
  };
}

/**
 * The engine trial `chooseEngineTrial` picks among the allowed trials, predicted from this decision's
 * assessment, with the based-on run's driver time not sped up and the job's billed overhead priced in.
 */
function trialOf<Shape>(
  context: DecisionContext<Shape>,
  trials: EngineTrials<Shape>,
  terms: Pick<
    Parameters<typeof chooseEngineTrial<Shape>>[0],
    'slaS' | 'budgetUsd' | 'minProbability' | 'maxCostShareOfBaseline' | 'overrun'
  >,
): EngineTrialChoice<Shape> | null {
  return chooseEngineTrial({
    ...terms,
    trials: allowedTrials(context.space, context.allowed, trials),
    assessment: context.assessment,
    ...(context.trialQuantiles ? { baselineQuantiles: context.trialQuantiles } : {}),
    fixedS: context.basedOn.profile.analysis.driverTimeMs / 1000,
    overheadS: context.overheadSeconds ?? 0,
  });
}

/** The budget an engine trial may spend: a multiple of the cheapest configuration the job has run (else of now). */
function trialBudgetUsd<Shape>(context: DecisionContext<Shape>): number {
  const cheapest = cheapestObserved(context.observations, context.currentId);
  return (
    maxTrialCostMultiple *
    (cheapest?.costUsd ??
      context.assessment.assessments.find((a) => a.candidate.id === context.currentId)?.expectedCostUsd ??
      0)
  );
}

/**
 * An SLA trial is made where the other engine could meet the SLA: the speed-up prior's low and high are its
 * 10th and 90th percentiles, so a trial whose 10th-percentile runtime is within the SLA (P(runtime ≤ SLA)
 * at least this) meets it at the prior's optimistic end. An even chance, what a feasible configuration is
 * asked, would call the SLA infeasible about an engine the job never ran while the job's own engine is
 * certain to miss: only a run on it says whether it can.
 */
const slaTrialMinProbability = 0.1;

/**
 * An SLA trial replaces a run predicted to miss, so it is held to the overrun bound of a learning run that
 * may miss (`budgetOverrunConfidence` of ending within `maxOverrun` × the SLA), not to a safe one's: a
 * speed-up prior that leaves "no gain" likely puts a tenth of its runs at the baseline's runtime or slower.
 */
const slaTrialOverrun = {
  factor: defaultOptimizerSettings.maxOverrun,
  minProbability: defaultOptimizerSettings.budgetOverrunConfidence,
};

/** What an SLA trial is held to (`engineTrialOf`). */
type SlaTrialTerms = Pick<
  Parameters<typeof chooseEngineTrial>[0],
  'slaS' | 'budgetUsd' | 'minProbability'
> & { overrun: TrialOverrunBound };

/**
 * When nothing on the job's engine meets the SLA: the trial of the other engine, when its prior leaves it
 * a chance to meet the SLA (`slaTrialMinProbability`) within the learning budget and the overrun bound
 * (`slaTrialOverrun`); else the infeasible decision, saying why the engine is not tried.
 */
function engineTrialOf<Shape>(
  context: DecisionContext<Shape>,
  trials: EngineTrials<Shape>,
  infeasible: Decided<Shape>,
): Decided<Shape> {
  const slaS = (context.settings.slaMinutes as number) * 60;
  const terms: SlaTrialTerms = {
    slaS,
    budgetUsd: trialBudgetUsd(context),
    minProbability: slaTrialMinProbability,
    overrun: { limitS: slaS * slaTrialOverrun.factor, minProbability: slaTrialOverrun.minProbability },
  };
  const trial = trialOf(context, trials, terms);
  if (!trial) return { ...infeasible, notes: [...infeasible.notes, noSlaTrialNote(context, trials, terms)] };
  const describe = (entry: ShapeEntry<Shape>) => context.model.describe(entry.shape);
  const baselineEntry = context.space.byId.get(trial.baseline.candidate.id) as ShapeEntry<Shape>;
  const { speedup } = trials;
  return {
    ...trialDecided(trial, trials, 'sla'),
    feasible: false,
    fastestKnown: infeasible.fastestKnown,
    notes: [
      ...infeasible.notes.filter((note) => note.startsWith('SLA infeasible')),
      `SLA infeasible without ${trials.engine}; trying ${trials.engine} to learn its speed-up: ` +
        `${describe(baselineEntry)} is predicted at ${minutes(trial.baseline.expectedRuntimeS)} min, ` +
        `and with ${speedup.source} ${trials.engine} gives P(runtime ≤ SLA) = ${trial.assessment.probabilityMeetsSla.toFixed(2)} ` +
        `for $${dollars(trial.assessment.expectedCostUsd)} per run (${trials.engine}'s DBU rate included)`,
      `this is one learning run: once it is measured, ${trials.engine} stays only where the model, ` +
        `knowing its measured speed-up, predicts it meets the SLA or pays for itself`,
    ],
  };
}

/**
 * Why no SLA trial of the other engine is made, in words: the first of its terms that leaves none —
 * no trial could meet the SLA even at the prior's optimistic end, none that could fits the learning
 * budget, or each that could and fits may overrun the SLA badly.
 */
function noSlaTrialNote<Shape>(
  context: DecisionContext<Shape>,
  trials: EngineTrials<Shape>,
  terms: SlaTrialTerms,
): string {
  const { engine, speedup } = trials;
  const notTried = `${engine}, which this job has not run, is not tried`;
  const { overrun, ...withoutOverrun } = terms;
  if (!trialOf(context, trials, { ...withoutOverrun, budgetUsd: Number.POSITIVE_INFINITY }))
    return (
      `${notTried}: no allowed ${engine} cluster could meet the SLA, even at the optimistic end of its ` +
      `speed-up prior (${speedup.high}× on executor task time, the 90th percentile)`
    );
  if (!trialOf(context, trials, withoutOverrun))
    return (
      `${notTried}: each ${engine} cluster that could meet the SLA is expected to cost more than ` +
      `$${dollars(terms.budgetUsd)} a run, ${maxTrialCostMultiple}× the cheapest this job has run`
    );
  const { factor } = slaTrialOverrun;
  return (
    `${notTried}: each ${engine} cluster that could meet the SLA within the learning budget may run past ` +
    `${factor}× the SLA (P(runtime ≤ ${factor}× SLA) below ${overrun.minProbability})`
  );
}

/**
 * A savings trial is made only where the engine is expected to cost at least this share less than the
 * same cluster on the job's engine: one run on an engine the job never ran is a bet, and a marginal gain
 * does not pay for it.
 */
const minSavingsTrialGain = 0.1;
/** A savings trial holds P(runtime ≤ SLA) to the learning run it replaces, up to this. */
const savingsTrialMaxSlaConfidence = 0.9;

/**
 * With the SLA within reach on the job's engine, during learning and with a speed-up prior read from the
 * job's own run (when `engineTrialSought` says so): the cheapest trial of the other engine that,
 * under that prior, is expected to cost at least `minSavingsTrialGain` less than the same cluster on the
 * job's engine and no more than the learning run it replaces, at no less P(runtime ≤ SLA) (up to
 * `savingsTrialMaxSlaConfidence`); else null.
 */
function savingsTrialOf<Shape>(
  context: DecisionContext<Shape>,
  trials: EngineTrials<Shape>,
  decided: Decided<Shape>,
): Decided<Shape> | null {
  const instead = decided.assessment;
  const trial = trialOf(context, trials, {
    slaS:
      context.settings.slaMinutes === null
        ? context.recommendation.slaSeconds
        : context.settings.slaMinutes * 60,
    budgetUsd: Math.min(trialBudgetUsd(context), instead.expectedCostUsd),
    minProbability: Math.min(instead.probabilityMeetsSla, savingsTrialMaxSlaConfidence),
    maxCostShareOfBaseline: 1 - minSavingsTrialGain,
  });
  if (!trial) return null;
  const describe = (entry: ShapeEntry<Shape>) => context.model.describe(entry.shape);
  const baselineEntry = context.space.byId.get(trial.baseline.candidate.id) as ShapeEntry<Shape>;
  const { speedup } = trials;
  return {
    ...trialDecided(trial, trials, 'savings'),
    feasible: true,
    fastestKnown: null,
    notes: [
      `trying ${trials.engine} for what it may save: with ${speedup.source}, ${describe(trial.entry)} is ` +
        `expected to cost $${smallDollars(trial.assessment.expectedCostUsd)} per run (${trials.engine}'s DBU rate ` +
        `included) against $${smallDollars(trial.baseline.expectedCostUsd)} for ${describe(baselineEntry)}, ` +
        `P(runtime ≤ SLA) = ${trial.assessment.probabilityMeetsSla.toFixed(2)}; it takes the place of a ` +
        `learning run on ${describe(decided.entry)} ($${smallDollars(instead.expectedCostUsd)})`,
      `this is one learning run: once it is measured, ${trials.engine} stays only where the model, ` +
        `knowing its measured speed-up, predicts it costs less`,
    ],
  };
}

/** What a chosen engine trial decides, whatever it is made for. */
function trialDecided<Shape>(
  trial: EngineTrialChoice<Shape>,
  trials: EngineTrials<Shape>,
  reason: 'sla' | 'savings',
): Omit<Decided<Shape>, 'feasible' | 'fastestKnown' | 'notes'> {
  const { speedup } = trials;
  return {
    entry: trial.entry,
    assessment: trial.assessment,
    runtimeS: trial.runtimeS,
    costUsd: trial.costUsd,
    trial: {
      engine: trials.engine,
      reason,
      speedup: { low: speedup.low, mid: speedup.mid, high: speedup.high },
    },
  };
}

function decideOnEngine<Shape>(context: DecisionContext<Shape>): Decided<Shape> {
  const { assessment, space, model, settings } = context;
  const byId = new Map(assessment.assessments.map((entry) => [entry.candidate.id, entry]));
  const current = byId.get(context.currentId) as CandidateAssessment;
  let chosen = byId.get(context.recommendation.candidateId) as CandidateAssessment;
  const notes: string[] = [];
  const describe = (entry: CandidateAssessment) =>
    model.describe((space.byId.get(entry.candidate.id) as ShapeEntry<Shape>).shape);
  const allowed = assessment.assessments.filter((entry) => context.allowed(entry.candidate));
  let feasible = true;
  if (settings.slaMinutes !== null) {
    feasible = slaFeasible(allowed);
    if (!feasible) {
      // "today" is the cheapest this job has run, not the last run: after a learning run on a wide
      // cluster, that run's cost is no budget to miss the SLA with
      const cheapest = cheapestObserved(context.observations, context.currentId);
      const budget = cheapest?.costUsd ?? current.expectedCostUsd;
      const affordable = allowed.filter((entry) => entry.expectedCostUsd <= budget);
      const fastest = minimumBy(allowed, (entry) => entry.expectedRuntimeS) ?? current;
      // the cheapest configuration run is always within the budget it sets
      const cheapestEntry = cheapest ? byId.get(cheapest.id) : undefined;
      const fallback = cheapestEntry && context.allowed(cheapestEntry.candidate) ? cheapestEntry : current;
      const fastestAffordable =
        minimumBy([...affordable, fallback], (entry) => entry.expectedRuntimeS) ?? current;
      chosen = fastestAffordable;
      const stage = dominantStage(context.basedOn.profile);
      notes.push(
        `SLA infeasible: fastest predicted ${minutes(fastest.expectedRuntimeS)} min on ${describe(fastest)} ` +
          `($${dollars(fastest.expectedCostUsd)}, P(runtime ≤ SLA) = ${fastest.probabilityMeetsSla.toFixed(2)})` +
          `${stage ? `; ${stage}` : ''}`,
        fastestAffordable === fastest
          ? 'that is the recommendation'
          : `no configuration meets the SLA, so Setpoint will not pay more to miss it: ` +
              `${fastestAffordable === current ? 'the current cluster is the fastest' : `${describe(fastestAffordable)} is the fastest`} ` +
              `at no more than $${dollars(budget)}, the cheapest this job has run${
                cheapest && cheapest.id !== context.currentId && byId.has(cheapest.id)
                  ? ` (${describe(byId.get(cheapest.id) as CandidateAssessment)})`
                  : ''
              }`,
      );
    } else if (
      chosen.probabilityMeetsSla >= slaFeasibleConfidence &&
      chosen.probabilityMeetsSla < spotMinSlaConfidence
    ) {
      const entry = space.byId.get(chosen.candidate.id) as ShapeEntry<Shape>;
      const twinShape = model.onDemandTwin(entry.shape);
      const twin = twinShape ? byId.get(model.shapeId(twinShape)) : undefined;
      if (twin && context.allowed(twin.candidate)) {
        notes.push(
          `on-demand workers instead of spot: P(runtime ≤ SLA) is ${chosen.probabilityMeetsSla.toFixed(2)}, ` +
            `below the ${spotMinSlaConfidence} a spot interruption (lost executors, re-run tasks) could not spoil; ` +
            `costs $${dollars(twin.expectedCostUsd - chosen.expectedCostUsd)} more per run`,
        );
        chosen = twin;
      }
    }
  }
  const overheadSeconds = context.overheadSeconds ?? 0;
  const { runtimeS, costUsd, note } = predictionOf(chosen, assessment, context.observations, overheadSeconds);
  if (note) notes.push(note);
  if (overheadSeconds > 0) notes.push(overheadNote(chosen, overheadSeconds));
  return {
    entry: space.byId.get(chosen.candidate.id) as ShapeEntry<Shape>,
    assessment: chosen,
    runtimeS,
    costUsd,
    feasible,
    fastestKnown: feasible ? null : fastestObserved(context),
    notes,
    trial: null,
  };
}

/** The configuration the job has run fastest (median of its completed runs), in the platform's words. */
function fastestObserved<Shape>(
  context: DecisionContext<Shape>,
): { description: string; runtimeSeconds: number } | null {
  const runtimes = new Map<string, number[]>();
  for (const o of context.observations)
    if (o.completed) runtimes.set(o.candidateId, [...(runtimes.get(o.candidateId) ?? []), o.runtimeS]);
  let fastest: { id: string; runtimeSeconds: number } | null = null;
  for (const [id, values] of runtimes) {
    const runtimeSeconds = median(values) as number;
    if (!fastest || runtimeSeconds < fastest.runtimeSeconds) fastest = { id, runtimeSeconds };
  }
  const entry = fastest ? context.space.byId.get(fastest.id) : undefined;
  if (!fastest || !entry) return null;
  return { description: context.model.describe(entry.shape), runtimeSeconds: fastest.runtimeSeconds };
}

/** The completed configuration with the lowest mean cost per run (the current one first among equals). */
function cheapestObserved(
  observations: readonly Observation[],
  currentId: string,
): { id: string; costUsd: number } | undefined {
  const costs = new Map<string, number[]>();
  for (const o of observations)
    if (o.completed) costs.set(o.candidateId, [...(costs.get(o.candidateId) ?? []), o.costUsd]);
  let best: { id: string; costUsd: number } | undefined;
  for (const [id, values] of costs) {
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    if (!best || mean < best.costUsd || (mean === best.costUsd && id === currentId))
      best = { id, costUsd: mean };
  }
  return best;
}

/**
 * The chosen configuration's predicted runtime and cost (10th, 50th, 90th percentile): the model's, moved
 * toward the median of its own completed runs — wholly after `runsToTrustObserved` runs.
 */
function predictionOf(
  chosen: CandidateAssessment,
  assessment: Assessment,
  observations: readonly Observation[],
  overheadSeconds: number,
): { runtimeS: Range; costUsd: Range; note: string | null } {
  const { mixture } = assessment;
  const runtimeS: Range = {
    low: mixture.quantile(chosen.index, 0.1),
    mid: mixture.quantile(chosen.index, 0.5),
    high: mixture.quantile(chosen.index, 0.9),
  };
  const rate = candidateRateUsdPerHour(chosen.candidate) / 3600;
  const overheadUsd = overheadCostUsd(chosen.candidate, overheadSeconds);
  const costUsd = shiftRange(scaleRange(runtimeS, rate), overheadUsd);
  const own = observations.filter((o) => o.candidateId === chosen.candidate.id && o.completed);
  if (own.length === 0 || runtimeS.mid <= 0 || costUsd.mid <= 0) return { runtimeS, costUsd, note: null };
  const weight = Math.min(1, own.length / runsToTrustObserved);
  const toward = (range: Range, target: number) =>
    scaleRange(range, Math.exp(weight * Math.log(target / range.mid)));
  return {
    runtimeS: toward(runtimeS, median(own.map((o) => o.runtimeS)) as number),
    costUsd: toward(costUsd, median(own.map((o) => o.costUsd)) as number),
    note: `prediction anchored on ${countOf(own.length, 'run')} of this configuration`,
  };
}

function shiftRange(range: Range, by: number): Range {
  return { low: range.low + by, mid: range.mid + by, high: range.high + by };
}

/** The billed overhead in the prediction, in words: how long, and what it costs on the chosen cluster. */
function overheadNote(chosen: CandidateAssessment, overheadSeconds: number): string {
  return (
    `each run is also billed ${minutes(overheadSeconds)} min outside the Spark application ` +
    `(cluster start-up, bootstrap and idle time, the median of this job's runs); the costs include it ` +
    `at each configuration's own rate: $${dollars(overheadCostUsd(chosen.candidate, overheadSeconds))} on this one`
  );
}

/**
 * The decision's SLA in words, the same in the explanation, the API, the CLI and on the card: the project's
 * SLA with its probability (and whether it is feasible), or with no SLA the runtime bound held instead —
 * never a probability of a runtime the team did not set.
 */
export function slaText(decision: Pick<RecommendationDecision, 'sla' | 'trial'>): string {
  const { sla } = decision;
  if (sla.kind === 'none') {
    if (sla.limitSeconds === null || sla.bestSeenSeconds === null) return noRuntimeBoundYet;
    const share = Math.round((sla.limitSeconds / sla.bestSeenSeconds - 1) * 100);
    return `no SLA set: runtime kept within ${share}% of the best seen (${minutes(sla.bestSeenSeconds)} min)`;
  }
  const probability = `P(runtime ≤ SLA ${minutes(sla.seconds)} min) = ${sla.probabilityMeets.toFixed(2)}`;
  const { trial } = decision;
  if (trial) {
    const onTrial = `${probability} on a ${trial.engine} trial (speed-up prior ${trial.speedup.mid}×, ${trial.speedup.low}–${trial.speedup.high}×)`;
    return trial.reason === 'savings' ? onTrial : `SLA infeasible without ${trial.engine}: ${onTrial}`;
  }
  if (sla.feasible) return probability;
  const fastest = sla.fastestKnown
    ? `fastest known ${minutes(sla.fastestKnown.runtimeSeconds)} min on ${sla.fastestKnown.description}; `
    : '';
  return `SLA infeasible: ${fastest}${probability}`;
}

/**
 * The learning phase in words: a rebase first (why earlier runs no longer count), whether this is a
 * learning run, its P(runtime ≤ SLA) when it is one, and the SLA misses spent of the project's budget.
 * Null for decisions recorded before the budget existed. The explanation opens with it and the card and
 * the CLI show it: a rebase is described once, from the decision.
 */
export function learningText(
  decision: Pick<RecommendationDecision, 'learning' | 'sla' | 'trial'>,
): string | null {
  const { learning } = decision;
  if (!learning) return null;
  const phase = learningPhaseText(decision, learning);
  if (!learning.rebaseReason) return phase;
  const rebase = `rebasing: ${learning.rebaseReason}; earlier runs no longer describe the job`;
  return learning.active ? `${rebase}, so learning starts over: ${phase}` : `${rebase}; ${phase}`;
}

function learningPhaseText(
  decision: Pick<RecommendationDecision, 'sla' | 'trial'>,
  learning: NonNullable<RecommendationDecision['learning']>,
): string {
  const { sla } = decision;
  const floor = defaultOptimizerSettings.safeLearningConfidence.toFixed(2);
  const missedAfterFirst =
    learning.missesSpent === 0
      ? 'no run after the first recommendation missed'
      : `${countOf(learning.missesSpent, 'run')} after the first recommendation missed`;
  const spent =
    learning.missBudget === null
      ? `safe learning: every learning run is held to ${
          sla.kind === 'project'
            ? `P(runtime ≤ SLA) ≥ ${floor}`
            : `a probability of ${floor} to stay within the runtime bound`
        }, or to a bound from a configuration that met it (${missedAfterFirst})`
      : `${learning.missesSpent} of ${learning.missBudget} allowed SLA misses spent`;
  if (!learning.active) {
    const why =
      learning.missBudget !== null && learning.missesSpent >= learning.missBudget
        ? 'the SLA-miss budget is spent'
        : learning.run >= learning.maxRuns
          ? `${learning.maxRuns} learning runs done`
          : learning.missBudget === null
            ? 'no untried configuration likely to meet the SLA is expected to cost less than the best known one'
            : 'no learning run was worth its risk';
    const over = `not a learning run: learning is over (${why}; ${spent})`;
    return learning.exploration ? `${over}; ${explorationText(learning.exploration)}` : over;
  }
  // the warning is for a run held below the learning confidence (by a bound or a miss budget); above it the
  // probability speaks for itself, and "it may miss" beside P = 0.98 reads as a contradiction
  const meets = sla.kind === 'project' ? `P(runtime ≤ SLA) = ${sla.probabilityMeets.toFixed(2)}` : null;
  const risk =
    sla.kind !== 'project'
      ? 'no SLA set'
      : sla.probabilityMeets < defaultOptimizerSettings.safeLearningConfidence
        ? `it may miss the SLA: ${meets}`
        : meets;
  const of = `at most ${learning.maxRuns}`;
  const bounded = learning.expansion
    ? `; safe by expansion: ${learning.expansion.from} met the SLA, and its slowest run scaled perfectly to this cluster's cores takes ${minutes(learning.expansion.boundSeconds)} min`
    : '';
  return `learning run ${learning.run} of ${of}${decision.trial ? ` (a ${decision.trial.engine} trial)` : ''}: ${risk}; ${spent}${bounded}`;
}

/**
 * Why a change after learning goes to a configuration the job never ran: held to the SLA confidence like
 * any change and not expected to cost more than now, it is tried for what it may save. It may be expected
 * to cost more than the best configuration so far when the job runs on a dearer one.
 */
function explorationText(exploration: Exploration): string {
  const { expectedImprovementUsd, bestKnownCostUsd, expectedCostUsd } = exploration;
  const dearer =
    expectedCostUsd > bestKnownCostUsd
      ? `, though its expected cost is $${smallDollars(expectedCostUsd)}`
      : '';
  return (
    `exploring a configuration not run yet: it may cost less than the cheapest configuration that met the ` +
    `SLA so far ($${smallDollars(bestKnownCostUsd)} a run), an expected improvement of ` +
    `$${smallDollars(expectedImprovementUsd)} a run${dearer}`
  );
}

/** What the decision rests on, in words (the optimizer's wording). */
export function basisText(basis: RecommendationDecision['basis']): string {
  return describeBasis(basis);
}

/** The explanation, rendered from the decision (the configuration and prediction come from it too). */
export function explanationOf(parts: {
  decision: RecommendationDecision;
  recommendation: Recommendation;
  phase: string;
  basedOn: RecommenderRun;
  analog: WhatIfSummary | null;
  runtimeS: Range;
  costUsd: Range;
  currentCostUsd: number;
  currentDescription: string;
}): string {
  const { recommendation, decision, runtimeS, costUsd } = parts;
  const learning =
    learningText(decision) ??
    (decision.trial
      ? `${decision.trial.engine} trial (a learning run)`
      : parts.phase === 'LEARNING'
        ? `learning run ${recommendation.currentLearningIteration + 1} of ${recommendation.totalLearningIterations}`
        : `${parts.phase.toLowerCase()} (learning ${recommendation.currentLearningIteration}/${recommendation.totalLearningIterations} done)`);
  const what = decision.action === 'keep' ? `No change: keep ${parts.currentDescription}` : decision.change;
  const sla = slaText(decision);
  const sentences = [
    `${capitalized(learning)}.`,
    parts.analog ? `${parts.analog.text}.` : null,
    `${what}: predicted ${minutes(runtimeS.mid)} min (${minutes(runtimeS.low)}–${minutes(runtimeS.high)}) ` +
      `at $${dollars(costUsd.mid)} (${dollars(costUsd.low)}–${dollars(costUsd.high)}); ${sla}, ` +
      `P(failure) = ${decision.probabilityFails.toFixed(2)}.`,
    ...decision.notes.map((note) => `${capitalized(note)}.`),
    `Based on ${basisText(decision.basis)}.`,
    (() => {
      const left = describeFiltered(decision.filtered);
      return left ? `${left}.` : null;
    })(),
    `${capitalized(runName(parts.basedOn))} took ${minutes(runtimeSecondsOf(parts.basedOn.profile))} min for $${dollars(parts.currentCostUsd)}.`,
  ];
  return sentences.filter((sentence): sentence is string => sentence !== null).join(' ');
}

const capitalized = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
