import { type ComponentFactor, type CostComponentLike, CostTotalsBuilder } from './cost-totals.js';

export interface CostedRunLike {
  startedAt: number | null;
  cost: { components: readonly CostComponentLike[] } | null;
}

/** Whether a run's spend counts in [from, to): it has a cost and started in the period. */
export function spentInPeriod(run: CostedRunLike, from: number, to: number): boolean {
  return run.cost !== null && run.startedAt !== null && run.startedAt >= from && run.startedAt < to;
}

/** Spend of the runs that started in [from, to), by kind, fee and platform (each component × `factor`). */
export function spendInPeriod(
  runs: Iterable<CostedRunLike>,
  from: number,
  to: number,
  factor?: ComponentFactor,
) {
  const totals = new CostTotalsBuilder();
  for (const run of runs) {
    if (run.cost && spentInPeriod(run, from, to)) totals.addRun(run.cost.components, factor);
  }
  return totals.build();
}
