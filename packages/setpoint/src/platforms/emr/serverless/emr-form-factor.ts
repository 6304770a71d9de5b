import { quantile } from '@setpoint/foundation/statistics';
import { countOf } from '@setpoint/foundation/words';
import type { RunProfile } from '../../../eventlog/run-profile.js';
import {
  adviseFormFactor,
  type FormFactor,
  type FormFactorAdvice,
  type FormFactorRun,
  type ServerlessEstimate,
} from '../../../service/form-factor/form-factor-advice.js';
import { emrServerlessEstimate } from './emr-serverless-estimate.js';
import type { EmrServerlessPrice } from './emr-serverless-prices.js';

/** A run of an EMR job on EC2, with the profile of its event log (null when it had none). */
export interface EmrClusterRun extends FormFactorRun {
  profile: RunProfile | null;
}

export interface EmrFormFactorEvidence {
  form: FormFactor;
  slaMinutes: number | null;
  region: string;
  clusterRuns: EmrClusterRun[];
  serverlessRuns: FormFactorRun[];
  /** EMR Serverless' published price in the region (null: none in Setpoint's price data). */
  price: EmrServerlessPrice | null;
}

const median = (values: readonly number[]) => quantile(values, 0.5);

/**
 * A run of the job on EMR Serverless, estimated from its own EMR on EC2 runs: each successful run's event log
 * as EMR Serverless would bill it (`emrServerlessEstimate`), the medians of their low, mid and high; its
 * runtime taken as the same (EMR Serverless starts workers in seconds, the cluster's provisioning is not in a
 * step's runtime). Evidence of this job, priced at published prices; never checked yet against a job that
 * moved.
 */
function estimateOnServerless(evidence: EmrFormFactorEvidence): ServerlessEstimate | null {
  if (!evidence.price) return null;
  const price = evidence.price;
  const estimated = evidence.clusterRuns.flatMap((run) => {
    if (!run.succeeded || !run.profile) return [];
    const estimate = emrServerlessEstimate(run.profile, price);
    return estimate ? [{ run, estimate }] : [];
  });
  if (estimated.length === 0) return null;
  const newest = estimated[estimated.length - 1]!.estimate;
  return {
    usdPerRun: {
      low: median(estimated.map((entry) => entry.estimate.usd.low)),
      mid: median(estimated.map((entry) => entry.estimate.usd.mid)),
      high: median(estimated.map((entry) => entry.estimate.usd.high)),
    },
    runtimes: estimated.map((entry) => entry.run.runtimeMinutes),
    kind: 'evidence',
    basis: [
      `${countOf(estimated.length, 'successful run')} of this job on EMR on EC2, each event log priced as EMR Serverless would bill it (medians); the newest:`,
      ...newest.basis,
      'the runtime is taken as on EC2 (workers start in seconds; the cluster’s provisioning is not in a step’s runtime)',
    ],
  };
}

/**
 * Form-factor advice for an EMR job (the core's rules, `adviseFormFactor`): on EMR Serverless, estimated from
 * its own EMR on EC2 runs; on EC2, only once it ran on a cluster Setpoint saw (measured, never invented).
 */
export function emrFormFactorAdvice(evidence: EmrFormFactorEvidence): FormFactorAdvice {
  return adviseFormFactor({
    form: evidence.form,
    slaMinutes: evidence.slaMinutes,
    classicRuns: evidence.clusterRuns,
    serverlessRuns: evidence.serverlessRuns,
    toServerless: estimateOnServerless(evidence),
    noServerlessEstimate: evidence.price
      ? 'no successful run on its cluster with an event log that names its executors yet'
      : `no published EMR Serverless price for ${evidence.region} in Setpoint's price data`,
    words: {
      classic: 'on EMR on EC2',
      serverless: 'on EMR Serverless',
      neverOnCluster:
        'the job never ran on an EMR cluster that Setpoint saw: a cluster is sized from its own event logs, so there is nothing to estimate from',
    },
  });
}
