import { type CostByKind, type CostComponent, type CostKind, costKinds } from '@setpoint/api-contract';
import { costKindLabels } from '@setpoint/insights';
import { formatUsd } from './format.js';

/** One colour per kind, the same in every chart, legend and swatch. */
export const costKindColors: Record<CostKind, string> = {
  compute: '#3b82f6',
  platform_fee: '#f59e0b',
  storage: '#10b981',
  network: '#8b5cf6',
  other: '#64748b',
};

/** The kinds that carry money in any of the sums, in the contract's order (compute first). */
export function kindsWithCost(sums: readonly CostByKind[]): CostKind[] {
  return costKinds.filter((kind) => sums.some((sum) => sum[kind] !== 0));
}

export const costKindLabel = (kind: CostKind): string => costKindLabels[kind];

/** A unit price with the digits it needs: "$0.192", "$0.00011". */
export function formatUnitPrice(usd: number | null): string {
  if (usd === null || !Number.isFinite(usd)) return '—';
  if (usd === 0 || Math.abs(usd) >= 0.01) return `$${Number(usd.toFixed(4))}`;
  return `$${Number(usd.toPrecision(2))}`;
}

const plural = (quantity: number, unit: string) => (Math.abs(quantity - 1) < 1e-9 ? unit : `${unit}s`);

/** "m5.xlarge, on-demand: 2.5 node-hours × $0.192 = $0.48 (as billed; estimated $0.50)". */
export function formatCostComponent(component: CostComponent): string {
  const quantity = Number(component.quantity.toFixed(3));
  const billed =
    component.estimated_usd === null ? '' : ` (as billed; estimated ${formatUsd(component.estimated_usd)})`;
  return (
    `${component.description}: ${quantity} ${plural(quantity, component.unit)} × ` +
    `${formatUnitPrice(component.unit_price_usd)} = ${formatUsd(component.usd)}${billed}`
  );
}
