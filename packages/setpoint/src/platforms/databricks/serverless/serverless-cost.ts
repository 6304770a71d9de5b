import type { CostComponent } from '@setpoint/api-contract';
import type { RunCost } from '../../../service/runs/run-records.js';
import type { ServerlessJobSpend } from './serverless-billing-reader.js';
import { describePerformanceTarget, type PerformanceTarget } from './serverless-tasks.js';

/** A serverless run's DBUs and what they cost at list prices, as billed or as estimated before the bill. */
export interface ServerlessCharge {
  performanceTarget: PerformanceTarget;
  dbus: number;
  usd: number;
  /** Where the amount comes from, in words (the bill, or the rate it was estimated at), or why it is pending. */
  basis: string;
  /** Nothing to state yet: the bill has not arrived and nothing billed says what the job's runs cost. */
  pending?: boolean;
}

/**
 * What a serverless run cost, as one typed component: compute billed by Databricks in DBUs (the machines
 * are Databricks' and included), so the organization's platform discount applies to it and totals count it
 * as compute. `estimated_usd` is null until the bill replaced the estimate. A charge still pending is stored
 * with the reason (`pending`): the run is then shown as "cost pending", never at $0.
 */
export function serverlessRunCost(
  charge: ServerlessCharge,
  where: { platform: string; cloud: string },
): RunCost {
  const component: CostComponent = {
    kind: 'compute',
    fee: null,
    platform: where.platform,
    cloud: where.cloud,
    billed_by: 'platform',
    description: `Serverless jobs compute, ${describePerformanceTarget(charge.performanceTarget)}`,
    quantity: charge.dbus,
    unit: 'DBU',
    unit_price_usd: charge.dbus > 0 ? charge.usd / charge.dbus : null,
    usd: charge.usd,
    low_usd: charge.usd,
    high_usd: charge.usd,
    estimated_usd: null,
  };
  return {
    currency: 'USD',
    totalUsd: charge.usd,
    lowUsd: charge.usd,
    highUsd: charge.usd,
    components: [component],
    ...(charge.pending ? { pending: { reason: charge.basis } } : {}),
  };
}

function isServerlessCompute(component: CostComponent): boolean {
  return component.kind === 'compute' && component.billed_by === 'platform' && component.unit === 'DBU';
}

/**
 * The run's cost with its serverless compute as billed: the bill's DBUs and dollars replace the estimate,
 * which is kept (`estimated_usd`) so a restatement replaces the earlier bill, not the estimate. A cost that
 * was pending had no estimate: it keeps `estimated_usd` null and is marked billed (`pending: null`).
 */
export function billedServerlessCost(
  cost: RunCost,
  bill: { dbus: number; usd: number },
): RunCost | undefined {
  const index = cost.components.findIndex(isServerlessCompute);
  const current = cost.components[index];
  if (!current || !(bill.usd >= 0)) return undefined;
  const delta = bill.usd - current.usd;
  const neverEstimated = cost.pending !== undefined;
  const components = cost.components.map((component, position) =>
    position === index
      ? {
          ...component,
          quantity: bill.dbus,
          unit_price_usd: bill.dbus > 0 ? bill.usd / bill.dbus : component.unit_price_usd,
          usd: bill.usd,
          low_usd: bill.usd,
          high_usd: bill.usd,
          estimated_usd: neverEstimated ? null : (component.estimated_usd ?? component.usd),
        }
      : component,
  );
  return {
    ...cost,
    ...(neverEstimated ? { pending: null } : {}),
    totalUsd: cost.totalUsd + delta,
    lowUsd: cost.lowUsd + delta,
    highUsd: cost.highUsd + delta,
    components,
  };
}

/**
 * What a run is expected to cost before its bill arrives (billing records come hours later): its tasks'
 * execution seconds at the billed rate per execution second of the job's own runs in the same mode, else in
 * either mode. Null when the job has no billed run: Databricks sizes each job's serverless compute itself,
 * so another job's rate says nothing about this one's, and the run's cost is pending until its bill.
 */
export function estimateServerlessCharge(
  spend: readonly ServerlessJobSpend[],
  run: { jobId: string; performanceTarget: PerformanceTarget; executionSeconds: number },
): ServerlessCharge | null {
  const usable = spend.filter((entry) => entry.executionSeconds > 0 && entry.usd > 0);
  const sources: Array<{ entries: ServerlessJobSpend[]; basis: string }> = [
    {
      entries: usable.filter((e) => e.jobId === run.jobId && e.performanceTarget === run.performanceTarget),
      basis: 'this job',
    },
    { entries: usable.filter((e) => e.jobId === run.jobId), basis: 'this job in either mode' },
  ];
  const source = sources.find((candidate) => candidate.entries.length > 0);
  if (!source) return null;
  const total = (pick: (entry: ServerlessJobSpend) => number) =>
    source.entries.reduce((sum, entry) => sum + pick(entry), 0);
  const seconds = total((entry) => entry.executionSeconds);
  const runs = total((entry) => entry.runs);
  return {
    performanceTarget: run.performanceTarget,
    usd: (total((entry) => entry.usd) / seconds) * run.executionSeconds,
    dbus: (total((entry) => entry.dbus) / seconds) * run.executionSeconds,
    basis: `estimated at the billed rate of ${source.basis} (${runs} billed run${runs === 1 ? '' : 's'}) until its own bill arrives`,
  };
}
