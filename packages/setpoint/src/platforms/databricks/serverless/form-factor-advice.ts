import { quantile } from '@setpoint/foundation/statistics';
import { countOf } from '@setpoint/foundation/words';
import { defaultOptimizerSettings } from '../../../optimizer/recommend.js';
import { probabilityMeets } from './performance-mode-advice.js';

/** Where a job's tasks run: a job cluster Setpoint sizes, or serverless compute Databricks sizes. */
export type FormFactor = 'classic' | 'serverless';

/** One finished run of the job in one form: what it took and what it cost (DBUs and dollars, as billed when known). */
export interface FormFactorRun {
  runtimeMinutes: number;
  succeeded: boolean;
  /** Null while its cost is pending. */
  usd: number | null;
  /** The run's DBUs (a cluster's DBU fee quantity; serverless compute's DBUs); null when unknown. */
  dbus: number | null;
}

/** What the advice rests on, gathered by the platform from the workspace and Setpoint's own records. */
export interface FormFactorEvidence {
  form: FormFactor;
  slaMinutes: number | null;
  classicRuns: FormFactorRun[];
  serverlessRuns: FormFactorRun[];
  /** The price of a serverless jobs DBU, and where it comes from (the workspace's bills or its list price). */
  serverlessPrice: { usdPerDbu: number; source: string } | null;
  /** Why there is no serverless price (no SQL warehouse, no price row). */
  serverlessPriceMissing?: string;
  /**
   * The workspace's jobs that ran in both forms: per job, serverless DBUs ÷ cluster DBUs per run and serverless
   * runtime ÷ cluster runtime (medians), this job left out.
   */
  conversions: Array<{ job: string; dbuRatio: number; runtimeRatio: number }>;
}

export type FormFactorVerdict = 'move' | 'stay' | 'estimate_only' | 'no_estimate';

export interface UsdRange {
  low: number;
  mid: number;
  high: number;
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
    /** `measured`: the job's own runs in that form; `evidence`: other jobs' moves; `assumption`: neither. */
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
/** Without evidence, serverless DBUs for the job's work are assumed within this factor of its cluster DBUs. */
const assumptionSpread = 2;

const median = (values: readonly number[]) => (values.length === 0 ? null : quantile(values, 0.5));
const usd = (value: number) => `$${value.toFixed(2)}`;
const succeeded = (runs: readonly FormFactorRun[]) => runs.filter((run) => run.succeeded);
const known = (runs: readonly FormFactorRun[], pick: (run: FormFactorRun) => number | null) =>
  runs.flatMap((run) => {
    const value = pick(run);
    return value === null || !(value > 0) ? [] : [value];
  });

/** A serverless run estimated from the job's cluster runs: their DBUs converted and priced at the serverless rate. */
function serverlessEstimate(evidence: FormFactorEvidence): {
  usdPerRun: UsdRange;
  runtimes: number[];
  kind: 'evidence' | 'assumption';
  basis: string[];
} | null {
  const runs = succeeded(evidence.classicRuns);
  const dbus = median(known(runs, (run) => run.dbus));
  const price = evidence.serverlessPrice;
  if (dbus === null || price === null) return null;
  const ratios = evidence.conversions.map((entry) => entry.dbuRatio);
  const runtimeRatio = median(evidence.conversions.map((entry) => entry.runtimeRatio)) ?? 1;
  const runtimes = runs.map((run) => run.runtimeMinutes * runtimeRatio).filter((minutes) => minutes > 0);
  const basis = [
    `${countOf(runs.length, 'successful run')} on its job cluster: median ${dbus.toFixed(2)} DBUs per run (as billed where the bill arrived)`,
    `serverless jobs compute at ${usd(price.usdPerDbu)} per DBU: ${price.source}`,
  ];
  if (ratios.length === 0)
    return {
      usdPerRun: {
        low: (dbus / assumptionSpread) * price.usdPerDbu,
        mid: dbus * price.usdPerDbu,
        high: dbus * assumptionSpread * price.usdPerDbu,
      },
      runtimes,
      kind: 'assumption',
      basis: [
        ...basis,
        `no job of this workspace has run in both forms: the same DBUs are assumed (range ½× to 2×) and the same runtime; this is an assumption, not evidence`,
      ],
    };
  const mid = median(ratios) ?? 1;
  return {
    usdPerRun: {
      low: Math.min(...ratios) * dbus * price.usdPerDbu,
      mid: mid * dbus * price.usdPerDbu,
      high: Math.max(...ratios) * dbus * price.usdPerDbu,
    },
    runtimes,
    kind: 'evidence',
    basis: [
      ...basis,
      `${countOf(ratios.length, 'job')} of this workspace ran in both forms (${evidence.conversions.map((entry) => entry.job).join(', ')}): serverless used ${mid.toFixed(2)}× their cluster DBUs and took ${runtimeRatio.toFixed(2)}× their runtime (medians)`,
    ],
  };
}

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
 * Form-factor advice for a Databricks job: what the same job would cost on serverless compute when it runs on
 * a job cluster (its cluster DBUs converted by what the workspace's moved jobs show, else assumed equal, at the
 * serverless DBU price), and on its job cluster when it runs serverless (only once it has run on one: Setpoint
 * does not invent a cluster). A move is proposed only with evidence (never an assumption), a saving of at least
 * 10 % and P(runtime ≤ SLA) ≥ 0.9; it is a proposal a person approves, never applied by Setpoint.
 */
export function formFactorAdvice(evidence: FormFactorEvidence): FormFactorAdvice {
  const from = evidence.form;
  const to: FormFactor = from === 'classic' ? 'serverless' : 'classic';
  const own = from === 'classic' ? evidence.classicRuns : evidence.serverlessRuns;
  const other = from === 'classic' ? evidence.serverlessRuns : evidence.classicRuns;
  const currentUsdPerRun = median(known(succeeded(own), (run) => run.usd));
  const measuredOther = median(known(succeeded(other), (run) => run.usd));
  const fromClassic = from === 'classic' || measuredOther !== null ? serverlessEstimate(evidence) : null;
  const check =
    fromClassic && evidence.serverlessRuns.length > 0
      ? (() => {
          const measuredUsd = median(known(succeeded(evidence.serverlessRuns), (run) => run.usd));
          return measuredUsd === null
            ? null
            : {
                estimatedUsd: fromClassic.usdPerRun.mid,
                measuredUsd,
                error: Math.abs(fromClassic.usdPerRun.mid - measuredUsd) / measuredUsd,
              };
        })()
      : null;
  let estimate: FormFactorAdvice['estimate'] = null;
  let runtimes: number[] = [];
  const basis: string[] = [];
  if (measuredOther !== null) {
    const otherRuns = succeeded(other);
    runtimes = otherRuns.map((run) => run.runtimeMinutes);
    const costs = known(otherRuns, (run) => run.usd);
    estimate = {
      usdPerRun: { low: quantile(costs, 0.1), mid: measuredOther, high: quantile(costs, 0.9) },
      runtimeMinutes: median(runtimes),
      kind: 'measured',
    };
    basis.push(
      `${countOf(otherRuns.length, 'successful run')} of this job ${to === 'serverless' ? 'on serverless compute' : 'on its job cluster'}: median ${usd(measuredOther)} (as billed where the bill arrived)`,
    );
  } else if (fromClassic) {
    runtimes = fromClassic.runtimes;
    estimate = { usdPerRun: fromClassic.usdPerRun, runtimeMinutes: median(runtimes), kind: fromClassic.kind };
    basis.push(...fromClassic.basis);
  }
  if (currentUsdPerRun !== null)
    basis.unshift(
      `now ${from === 'classic' ? 'on its job cluster' : 'on serverless compute'}: median ${usd(currentUsdPerRun)} per run`,
    );
  const sla = evidence.slaMinutes;
  const probabilityMeetsSla = sla !== null && runtimes.length > 0 ? probabilityMeets(runtimes, sla) : null;
  if (!estimate) {
    const reason =
      to === 'classic'
        ? 'the job never ran on a job cluster that Setpoint saw: a cluster is sized from its own event logs, so there is nothing to estimate from'
        : evidence.serverlessPrice === null
          ? `no serverless price: ${evidence.serverlessPriceMissing ?? 'system.billing.list_prices has none'}`
          : 'no successful run with known DBUs on its job cluster yet';
    return {
      from,
      to,
      verdict: 'no_estimate',
      currentUsdPerRun,
      estimate: null,
      savingUsdPerRun: null,
      probabilityMeetsSla: null,
      basis,
      reason,
      check,
    };
  }
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
