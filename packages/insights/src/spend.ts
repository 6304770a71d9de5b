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

const dayMs = 86_400_000;

/** Days of spend the projects table and its KPI header show. */
export const spendWindowDays = 30;

/**
 * The spend window of the projects table and the KPI header: the `days` whole UTC days up to the end of
 * today, so the server's per-project figures and the header's total cover the same runs.
 */
export function spendWindow(now: number, days = spendWindowDays): { from: number; to: number } {
  const to = Math.floor(now / dayMs) * dayMs + dayMs;
  return { from: to - days * dayMs, to };
}
