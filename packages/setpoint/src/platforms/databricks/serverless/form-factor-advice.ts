import { quantile } from '@setpoint/foundation/statistics';
import { countOf } from '@setpoint/foundation/words';
import {
  adviseFormFactor,
  type FormFactor,
  type FormFactorAdvice,
  type FormFactorRun,
  type ServerlessEstimate,
} from '../../../service/form-factor/form-factor-advice.js';

export type { FormFactor, FormFactorAdvice };

/** A Databricks run in one form: with its DBUs (a cluster's DBU fee quantity; serverless compute's DBUs). */
export interface DatabricksFormFactorRun extends FormFactorRun {
  /** Null when unknown. */
  dbus: number | null;
}

/** What the advice rests on, gathered by the platform from the workspace and Setpoint's own records. */
export interface FormFactorEvidence {
  form: FormFactor;
  slaMinutes: number | null;
  classicRuns: DatabricksFormFactorRun[];
  serverlessRuns: DatabricksFormFactorRun[];
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

/** Without evidence, serverless DBUs for the job's work are assumed within this factor of its cluster DBUs. */
const assumptionSpread = 2;

const median = (values: readonly number[]) => (values.length === 0 ? null : quantile(values, 0.5));
const usd = (value: number) => `$${value.toFixed(2)}`;
const succeeded = (runs: readonly DatabricksFormFactorRun[]) => runs.filter((run) => run.succeeded);
const known = (
  runs: readonly DatabricksFormFactorRun[],
  pick: (run: DatabricksFormFactorRun) => number | null,
) =>
  runs.flatMap((run) => {
    const value = pick(run);
    return value === null || !(value > 0) ? [] : [value];
  });

/** A serverless run estimated from the job's cluster runs: their DBUs converted and priced at the serverless rate. */
function serverlessEstimate(evidence: FormFactorEvidence): ServerlessEstimate | null {
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

/**
 * Form-factor advice for a Databricks job (the core's rules, `adviseFormFactor`): on serverless compute, the
 * job's cluster DBUs converted by what the workspace's moved jobs show (else assumed equal) at the serverless DBU
 * price; on its job cluster, only once it ran on one.
 */
export function formFactorAdvice(evidence: FormFactorEvidence): FormFactorAdvice {
  return adviseFormFactor({
    form: evidence.form,
    slaMinutes: evidence.slaMinutes,
    classicRuns: evidence.classicRuns,
    serverlessRuns: evidence.serverlessRuns,
    toServerless: serverlessEstimate(evidence),
    noServerlessEstimate:
      evidence.serverlessPrice === null
        ? `no serverless price: ${evidence.serverlessPriceMissing ?? 'system.billing.list_prices has none'}`
        : 'no successful run with known DBUs on its job cluster yet',
    words: {
      classic: 'on its job cluster',
      serverless: 'on serverless compute',
      neverOnCluster:
        'the job never ran on a job cluster that Setpoint saw: a cluster is sized from its own event logs, so there is nothing to estimate from',
    },
  });
}
