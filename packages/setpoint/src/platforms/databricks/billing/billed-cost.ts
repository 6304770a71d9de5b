import type { CostComponent } from '@setpoint/api-contract';
import type { RunCost } from '../../../service/runs/run-records.js';
import { dbuFee } from '../cluster-shape/billing.js';

function isDbu(component: CostComponent): boolean {
  return component.kind === 'platform_fee' && component.fee === dbuFee;
}

/**
 * A run's cost with its DBU charge as billed: each DBU component's list-price amount scaled by what the bill
 * says the run's cluster cost against what Setpoint estimated for the same cluster life; the total and its
 * bounds move by the same amount. The list-price amount is kept (`estimated_usd`), so a restatement revises
 * from it and replaces the earlier bill.
 */
export function billedCost(
  cost: RunCost,
  cluster: { estimatedDbuUsd: number; billedDbuUsd: number; billedDbus: number },
): RunCost | undefined {
  if (!(cluster.estimatedDbuUsd > 0) || !(cluster.billedDbuUsd >= 0)) return undefined;
  if (!cost.components.some(isDbu)) return undefined;
  const ratio = cluster.billedDbuUsd / cluster.estimatedDbuUsd;
  let delta = 0;
  const components = cost.components.map((component) => {
    if (!isDbu(component)) return component;
    const estimate = component.estimated_usd ?? component.usd;
    const usd = estimate * ratio;
    const moved = usd - component.usd;
    delta += moved;
    return {
      ...component,
      usd,
      low_usd: component.low_usd + moved,
      high_usd: component.high_usd + moved,
      unit_price_usd: component.quantity > 0 ? usd / component.quantity : component.unit_price_usd,
      estimated_usd: estimate,
    };
  });
  return {
    ...cost,
    totalUsd: cost.totalUsd + delta,
    lowUsd: cost.lowUsd + delta,
    highUsd: cost.highUsd + delta,
    components,
  };
}

/**
 * Whether a run's DBU cost was estimated before its bill. A serverless run of a job with no billed run was
 * not (its cost was pending, stored as 0): it has no estimate to compare with the bill.
 */
export function hasBillingEstimate(row: {
  performance_target: string | null;
  estimated_dbus: number;
  estimated_dbu_usd: number;
}): boolean {
  return row.performance_target === null || row.estimated_dbus > 0 || row.estimated_dbu_usd > 0;
}
