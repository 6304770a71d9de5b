import type { CostComponent } from '@setpoint/api-contract';

/** One cost component at an exact amount: a compute hour on AWS unless `fields` says otherwise. */
export function costComponent(
  kind: CostComponent['kind'],
  usd: number,
  fields: Partial<CostComponent> = {},
): CostComponent {
  return {
    kind,
    fee: null,
    platform: 'databricks',
    cloud: 'aws',
    billed_by: kind === 'platform_fee' ? 'platform' : 'cloud',
    description: kind,
    quantity: 1,
    unit: 'node-hour',
    unit_price_usd: usd,
    usd,
    low_usd: usd,
    high_usd: usd,
    estimated_usd: null,
    ...fields,
  };
}

/** A run's cost as stored (`RunCost`): the components' sums as its total and bounds. */
export function storedRunCost(components: CostComponent[]) {
  return {
    currency: 'USD' as const,
    totalUsd: components.reduce((sum, c) => sum + c.usd, 0),
    lowUsd: components.reduce((sum, c) => sum + c.low_usd, 0),
    highUsd: components.reduce((sum, c) => sum + c.high_usd, 0),
    components,
  };
}

/** A stored cost of `usd` in all: one compute component. */
export function computeCost(usd: number) {
  return storedRunCost([costComponent('compute', usd)]);
}

/** The dollars of one kind (of one fee) in a breakdown's components. */
export function usdOf(
  cost: { components: readonly CostComponent[] },
  kind: CostComponent['kind'],
  fee?: string,
) {
  return cost.components
    .filter((c) => c.kind === kind && (fee === undefined || c.fee === fee))
    .reduce((sum, c) => sum + c.usd, 0);
}

/** How many units of a platform fee a breakdown bills (DBUs, instance-hours). */
export function feeUnits(cost: { components: readonly CostComponent[] }, fee: string) {
  return cost.components.filter((c) => c.fee === fee).reduce((sum, c) => sum + c.quantity, 0);
}

/** The one unit price of a platform fee across a breakdown (undefined when it bills none or several). */
export function feeUnitPrice(cost: { components: readonly CostComponent[] }, fee: string) {
  const prices = new Set(cost.components.filter((c) => c.fee === fee).map((c) => c.unit_price_usd));
  return prices.size === 1 ? [...prices][0] : undefined;
}
