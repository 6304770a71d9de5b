import { mean, quantile } from '@setpoint/foundation/statistics';
import { countOf } from '@setpoint/foundation/words';
import { normalCdf } from '../../optimizer/normal-distribution.js';
import { defaultOptimizerSettings } from '../../optimizer/recommend.js';

/**
 * Where a job runs, on every platform: on a cluster Setpoint sizes (`classic`: a Databricks job cluster, an EMR
 * cluster on EC2) or on compute the platform sizes itself (`serverless`: Databricks serverless compute, EMR
 * Serverless).
 */
export type FormFactor = 'classic' | 'serverless';

/** One finished run of the job in one form: what it took and what it cost (as billed when known). */
export interface FormFactorRun {
  runtimeMinutes: number;
  succeeded: boolean;
  /** Null while its cost is pending. */
  usd: number | null;
}

export type FormFactorVerdict = 'move' | 'stay' | 'estimate_only' | 'no_estimate';

export interface UsdRange {
  low: number;
  mid: number;
  high: number;
}

/** A platform's estimate of what a run of the job would cost on serverless, from its runs on its cluster. */
export interface ServerlessEstimate {
  usdPerRun: UsdRange;
  /** The runtimes (minutes) the job is expected to take there, one per run the estimate read. */
  runtimes: number[];
  /** `evidence`: measured facts of this job or of jobs that moved; `assumption`: neither (never proposes a move). */
  kind: 'evidence' | 'assumption';
  basis: string[];
}

/** What the advice reads: the job's runs in each form and the platform's estimate, in the platform's words. */
export interface FormFactorInput {
  form: FormFactor;
  slaMinutes: number | null;
  classicRuns: FormFactorRun[];
  serverlessRuns: FormFactorRun[];
  /** A serverless run estimated from the job's cluster runs; null when the platform has none (with the reason). */
  toServerless: ServerlessEstimate | null;
  noServerlessEstimate: string;
  /** "on its job cluster", "on serverless compute"; and why there is no cluster estimate for a serverless job. */
  words: { classic: string; serverless: string; neverOnCluster: string };
}

/** What the same job would cost in the other form, on what basis, and whether a move is proposed. */
export interface FormFactorAdvice {
  from: FormFactor;
  to: FormFactor;
  verdict: FormFactorVerdict;
  /** Median cost of a run in its current form, as measured (billed where known). */
  currentUsdPerRun: number | null;
  /** A run in the other form: measured once it ran there, else estimated; null when nothing supports one. */
  estimate: {
    usdPerRun: UsdRange;
    runtimeMinutes: number | null;
    /** `measured`: the job's own runs in that form; `evidence`: facts the platform estimated from; `assumption`: neither. */
    kind: 'measured' | 'evidence' | 'assumption';
  } | null;
  /** Per run, current − estimate (positive: the other form is cheaper). */
  savingUsdPerRun: number | null;
  /** P(runtime ≤ SLA) in the other form; null without an SLA or a runtime estimate. */
  probabilityMeetsSla: number | null;
  /** Each piece of evidence and each price, in words. */
  basis: string[];
  reason: string;
  /**
   * Once the job has runs in the form a move is estimated for: the estimate from the other form's evidence
   * alone against what those runs cost (the goal: within 15 %).
   */
  check: { estimatedUsd: number; measuredUsd: number; error: number } | null;
}

/** A move is proposed only when it saves at least this share of a run's cost. */
export const formFactorMinSaving = 0.1;
/** The log-normal's least spread: a few alike runs never make a runtime certain. */
const minLogSpread = 0.1;

/** P(runtime ≤ SLA) under a log-normal fitted to the runtimes (spread at least `minLogSpread`). */
export function probabilityMeets(runtimes: readonly number[], slaMinutes: number): number {
  if (runtimes.length === 0) return 0;
  const logs = runtimes.map(Math.log);
  const mu = mean(logs) ?? 0;
  const variance = logs.length > 1 ? logs.reduce((sum, x) => sum + (x - mu) ** 2, 0) / (logs.length - 1) : 0;
  return normalCdf((Math.log(slaMinutes) - mu) / Math.max(Math.sqrt(variance), minLogSpread));
}

const median = (values: readonly number[]) => (values.length === 0 ? null : quantile(values, 0.5));
const usd = (value: number) => `$${value.toFixed(2)}`;
const succeeded = <Run extends FormFactorRun>(runs: readonly Run[]) => runs.filter((run) => run.succeeded);
const knownUsd = (runs: readonly FormFactorRun[]) =>
  runs.flatMap((run) => (run.usd === null || !(run.usd > 0) ? [] : [run.usd]));

function slaWords(sla: number | null, probability: number | null): string {
  if (sla === null) return 'no SLA is set, so nothing says the other form keeps the job on time';
  if (probability === null) return 'no runtime estimate to hold against the SLA';
  return `P(runtime ≤ ${sla} min) = ${probability.toFixed(2)} in the other form`;
}

function verdictOf(input: {
  kind: 'measured' | 'evidence' | 'assumption';
  saving: number | null;
  current: number | null;
  probability: number | null;
  sla: number | null;
}): { verdict: FormFactorVerdict; reason: string } {
  const confidence = defaultOptimizerSettings.safeLearningConfidence;
  const { saving, current, probability, sla } = input;
  if (saving === null || current === null || current <= 0)
    return { verdict: 'estimate_only', reason: 'the current form has no billed run to compare with' };
  const share = saving / current;
  if (share < formFactorMinSaving)
    return {
      verdict: 'stay',
      reason:
        share < 0
          ? `a run would cost ${(-share * 100).toFixed(0)}% more in the other form`
          : `the other form would save ${(share * 100).toFixed(0)}% of a run (< ${formFactorMinSaving * 100}%)`,
    };
  if (input.kind === 'assumption')
    return {
      verdict: 'estimate_only',
      reason: `it might save ${(share * 100).toFixed(0)}% of a run, but the estimate is an assumption: no move is proposed until a job of this workspace has run in both forms`,
    };
  if (sla === null || probability === null || probability < confidence)
    return {
      verdict: 'stay',
      reason: `it would save ${(share * 100).toFixed(0)}% of a run, but the SLA does not support the move: ${slaWords(sla, probability)}${probability !== null ? ` (< ${confidence})` : ''}`,
    };
  return {
    verdict: 'move',
    reason: `it would save ${(share * 100).toFixed(0)}% of a run (${usd(saving)}) and ${slaWords(sla, probability)} ≥ ${confidence}`,
  };
}

/**
 * Form-factor advice for a job on any platform: what the same job would cost on serverless compute when it runs
 * on a cluster (the platform's estimate from its cluster runs), and on a cluster when it runs serverless (only
 * once it has run on one: Setpoint does not invent a cluster). A move is proposed only with evidence (never an
 * assumption), a saving of at least 10 % and P(runtime ≤ SLA) ≥ 0.9; it is a proposal a person approves, never
 * applied by Setpoint.
 */
export function adviseFormFactor(input: FormFactorInput): FormFactorAdvice {
  const from = input.form;
  const to: FormFactor = from === 'classic' ? 'serverless' : 'classic';
  const where = (form: FormFactor) => input.words[form];
  const own = from === 'classic' ? input.classicRuns : input.serverlessRuns;
  const other = from === 'classic' ? input.serverlessRuns : input.classicRuns;
  const currentUsdPerRun = median(knownUsd(succeeded(own)));
  const measuredOther = median(knownUsd(succeeded(other)));
  const fromClassic = from === 'classic' || measuredOther !== null ? input.toServerless : null;
  const measuredServerless = median(knownUsd(succeeded(input.serverlessRuns)));
  const check =
    fromClassic && measuredServerless !== null
      ? {
          estimatedUsd: fromClassic.usdPerRun.mid,
          measuredUsd: measuredServerless,
          error: Math.abs(fromClassic.usdPerRun.mid - measuredServerless) / measuredServerless,
        }
      : null;
  let estimate: FormFactorAdvice['estimate'] = null;
  let runtimes: number[] = [];
  const basis: string[] = [];
  if (measuredOther !== null) {
    const otherRuns = succeeded(other);
    runtimes = otherRuns.map((run) => run.runtimeMinutes);
    const costs = knownUsd(otherRuns);
    estimate = {
      usdPerRun: { low: quantile(costs, 0.1), mid: measuredOther, high: quantile(costs, 0.9) },
      runtimeMinutes: median(runtimes),
      kind: 'measured',
    };
    basis.push(
      `${countOf(otherRuns.length, 'successful run')} of this job ${where(to)}: median ${usd(measuredOther)} (as billed where the bill arrived)`,
    );
  } else if (fromClassic) {
    runtimes = fromClassic.runtimes;
    estimate = { usdPerRun: fromClassic.usdPerRun, runtimeMinutes: median(runtimes), kind: fromClassic.kind };
    basis.push(...fromClassic.basis);
  }
  if (currentUsdPerRun !== null) basis.unshift(`now ${where(from)}: median ${usd(currentUsdPerRun)} per run`);
  const sla = input.slaMinutes;
  const probabilityMeetsSla = sla !== null && runtimes.length > 0 ? probabilityMeets(runtimes, sla) : null;
  if (!estimate)
    return {
      from,
      to,
      verdict: 'no_estimate',
      currentUsdPerRun,
      estimate: null,
      savingUsdPerRun: null,
      probabilityMeetsSla: null,
      basis,
      reason: to === 'classic' ? input.words.neverOnCluster : input.noServerlessEstimate,
      check,
    };
  const savingUsdPerRun = currentUsdPerRun === null ? null : currentUsdPerRun - estimate.usdPerRun.mid;
  const { verdict, reason } = verdictOf({
    kind: estimate.kind,
    saving: savingUsdPerRun,
    current: currentUsdPerRun,
    probability: probabilityMeetsSla,
    sla,
  });
  return {
    from,
    to,
    verdict,
    currentUsdPerRun,
    estimate,
    savingUsdPerRun,
    probabilityMeetsSla,
    basis,
    reason,
    check,
  };
}
