import { quantile } from '@setpoint/foundation/statistics';
import { countOf } from '@setpoint/foundation/words';
import { defaultOptimizerSettings } from '../../../optimizer/recommend.js';
import { probabilityMeets } from '../../../service/form-factor/form-factor-advice.js';
import { costRange, knownCosts, range } from '../../../service/recommender/monitored-ranges.js';
import type {
  RecommendationDecision,
  RecommendationInput,
  RecommendationOutput,
} from '../../../service/recommender/recommender.js';
import type { RecommenderRun } from '../../../service/recommender/recommender-run.js';
import { isServerlessRun } from './serverless-monitoring.js';
import {
  describePerformanceTarget,
  type PerformanceTarget,
  performanceTargetOf,
} from './serverless-tasks.js';
import {
  probabilityStandardMeets,
  type StandardModeSpread,
  standardModeSpread,
} from './standard-mode-spread.js';

/**
 * How far under the confidence P(runtime ≤ SLA) may fall before a job in standard mode whose standard runs all
 * met the SLA is moved back: entering standard mode needs P ≥ 0.9, staying P ≥ 0.85, so a job near the line
 * is not written back and forth on the spread of its last run (a hysteresis band, like the optimizer's minimum
 * saving).
 */
export const keepBand = 0.05;

/** Standard mode "typically starts within 4 to 6 minutes": a trial is judged on the slow end. */
export const standardStartupMinutes = 6;

interface ModeRuns {
  runtimes: number[];
  costs: number[];
}

function modeRuns(runs: readonly RecommenderRun[], target: PerformanceTarget): ModeRuns {
  const succeeded = runs.filter(
    (run) =>
      isServerlessRun(run) &&
      run.status === 'SUCCESS' &&
      performanceTargetOf(run.clusterConfig?.performance_target) === target,
  );
  return {
    runtimes: succeeded.map((run) => run.profile.analysis.wallTimeMs / 60_000).filter((m) => m > 0),
    costs: knownCosts(succeeded),
  };
}

const usd = (value: number) => `$${value.toFixed(2)}`;

/** What the advice decided, before it is worded. */
interface Choice {
  target: PerformanceTarget;
  probability: number;
  /** A first run in standard mode, predicted from performance-optimized runs: a learning run. */
  trial: boolean;
  reason: string;
  predicted: ModeRuns;
}

/** The spread a standard run was judged with, and where it came from. */
function spreadWords(spread: StandardModeSpread): string {
  const percent = `${(spread.logSpread * 100).toFixed(1)}%`;
  if (spread.ownWider) return `spread ${percent}, its standard runs' own`;
  return spread.degrees === 0
    ? `spread ${percent}, the prior alone`
    : `spread ${percent}, pooled over its runs in both modes (${spread.degrees} degrees of freedom) and the prior`;
}

function choose(current: PerformanceTarget, sla: number, optimized: ModeRuns, standard: ModeRuns): Choice {
  const confidence = defaultOptimizerSettings.safeLearningConfidence;
  if (standard.runtimes.length > 0) {
    // measured in standard mode: the mode's level from its own runs, the run-to-run spread from all of them
    const spread = standardModeSpread(optimized.runtimes, standard.runtimes);
    const pStandard = probabilityStandardMeets(standard.runtimes, sla, spread.logSpread);
    const judged = spreadWords(spread);
    if (pStandard >= confidence)
      return {
        target: 'STANDARD',
        probability: pStandard,
        trial: false,
        reason: `its ${countOf(standard.runtimes.length, 'run')} in standard mode ${standard.runtimes.length === 1 ? 'meets' : 'meet'} the ${sla}-minute SLA with P = ${pStandard.toFixed(2)} ≥ ${confidence} (${judged})`,
        predicted: standard,
      };
    // in standard mode, every run of it on time: a wobble of P just under the confidence is no reason to write
    if (
      current === 'STANDARD' &&
      pStandard >= confidence - keepBand &&
      standard.runtimes.every((minutes) => minutes <= sla)
    )
      return {
        target: 'STANDARD',
        probability: pStandard,
        trial: false,
        reason: `its ${countOf(standard.runtimes.length, 'run')} in standard mode all met the ${sla}-minute SLA and P = ${pStandard.toFixed(2)} is within ${keepBand} of ${confidence} (${judged}): it stays in the mode it is in`,
        predicted: standard,
      };
    return {
      target: 'PERFORMANCE_OPTIMIZED',
      probability: probabilityMeets(optimized.runtimes, sla),
      trial: false,
      reason: `in standard mode it meets the ${sla}-minute SLA with P = ${pStandard.toFixed(2)} only (< ${confidence}; ${judged})`,
      predicted: optimized.runtimes.length > 0 ? optimized : standard,
    };
  }
  // never run in standard mode: the same work plus standard mode's slowest usual start-up; the shift is assumed,
  // not measured, so the trial keeps the log-normal's fixed least spread rather than the pooled one
  const shifted = optimized.runtimes.map((minutes) => minutes + standardStartupMinutes);
  const pTrial = probabilityMeets(shifted, sla);
  if (current === 'PERFORMANCE_OPTIMIZED' && optimized.runtimes.length >= 2 && pTrial >= confidence)
    return {
      target: 'STANDARD',
      probability: pTrial,
      trial: true,
      reason: `with ${standardStartupMinutes} more minutes of start-up its runs would meet the ${sla}-minute SLA with P = ${pTrial.toFixed(2)} ≥ ${confidence}: one run in standard mode measures its saving`,
      predicted: { runtimes: shifted, costs: optimized.costs },
    };
  return {
    target: 'PERFORMANCE_OPTIMIZED',
    probability: probabilityMeets(optimized.runtimes, sla),
    trial: false,
    reason:
      optimized.runtimes.length < 2
        ? 'two successful runs are needed before a run in standard mode is tried'
        : `with ${standardStartupMinutes} more minutes of start-up it would meet the ${sla}-minute SLA with P = ${pTrial.toFixed(2)} only (< ${confidence})`,
    predicted: optimized,
  };
}

/**
 * Performance-mode advice for a serverless job with an SLA (its runtime counts the start-up): standard mode
 * when its runs show the added start-up still meets the SLA with the safe-learning confidence
 * (P(runtime ≤ SLA) ≥ 0.9, log-normal at the standard runs' own level with the run-to-run spread pooled over
 * both modes' runs, `standardModeSpread`), performance-optimized when they do not.
 * A job never run in standard mode gets one trial run there (a learning run, held to the same
 * P ≥ 0.9 on its performance-optimized runs plus standard mode's 6-minute start-up); the saving is stated
 * once both modes were billed. Null without an SLA: nothing says how much start-up the job can take.
 */
export function performanceModeAdvice(input: RecommendationInput): RecommendationOutput | null {
  const sla = input.project.settings.slaMinutes;
  if (sla === null) return null;
  const basedOn = input.runs.find((run) => run.id === input.basedOnRunId) ?? input.runs.at(-1);
  const current = performanceTargetOf(basedOn?.clusterConfig?.performance_target);
  const optimized = modeRuns(input.runs, 'PERFORMANCE_OPTIMIZED');
  const standard = modeRuns(input.runs, 'STANDARD');
  const choice = choose(current, sla, optimized, standard);
  const change = choice.target !== current;
  const saving =
    optimized.costs.length > 0 && standard.costs.length > 0
      ? quantile(optimized.costs, 0.5) - quantile(standard.costs, 0.5)
      : null;
  const savingWords =
    saving === null
      ? 'the saving is measured once the job has run in both modes (Databricks bills fewer DBUs in standard mode at the same price)'
      : `a run costs ${usd(quantile(standard.costs, 0.5))} in standard mode and ${usd(quantile(optimized.costs, 0.5))} performance-optimized (median): ${saving >= 0 ? `${usd(saving)} saved` : `${usd(-saving)} more`} per run in standard mode`;
  const words = (target: PerformanceTarget) => describePerformanceTarget(target);
  const risk = `risk: P(runtime > SLA) = ${(1 - choice.probability).toFixed(2)}`;
  const decision: RecommendationDecision = {
    action: change ? 'change' : 'keep',
    change: change ? `${words(current)} → ${words(choice.target)}` : 'no change',
    sla: { kind: 'project', seconds: sla * 60, probabilityMeets: choice.probability, feasible: true },
    probabilityFails:
      input.runs.length === 0
        ? 0
        : input.runs.filter((run) => run.status !== 'SUCCESS').length / input.runs.length,
    basis: {
      runs: optimized.runtimes.length + standard.runtimes.length,
      configurations: (optimized.runtimes.length > 0 ? 1 : 0) + (standard.runtimes.length > 0 ? 1 : 0),
      fleetJobs: 0,
      shippedJobs: 0,
      calibrationCases: 0,
      closest: [],
    },
    filtered: [],
    notes: [choice.reason, savingWords],
    learning: {
      active: choice.trial,
      run: choice.trial ? 1 : 0,
      maxRuns: 1,
      missBudget: null,
      missesSpent: 0,
    },
  };
  return {
    phase: choice.trial ? 'LEARNING' : change ? 'OPTIMIZING' : 'MONITORING',
    configuration: { performance_target: choice.target },
    prediction: {
      runtimeMinutes: range(choice.predicted.runtimes),
      costUsd: costRange(choice.predicted.costs),
    },
    explanation:
      `Serverless job, ${change ? `${words(current)} → ${words(choice.target)}` : `stays ${words(current)}`}${choice.trial ? ' (a trial run)' : ''}: ` +
      `${choice.reason}; ${savingWords}; ${risk}.`,
    decision,
  };
}
