import { type CostLineLike, splitCostLines } from './cost-split.js';

export interface CostedRunLike {
  startedAt: number | null;
  cost: { totalUsd: number; lines: readonly CostLineLike[] } | null;
}

export interface Spend {
  cloudUsd: number;
  dbuUsd: number;
  totalUsd: number;
}

/** Spend of the runs that started in [from, to), split into cloud and Databricks DBU charges. */
export function spendInPeriod(runs: Iterable<CostedRunLike>, from: number, to: number): Spend {
  const spend: Spend = { cloudUsd: 0, dbuUsd: 0, totalUsd: 0 };
  for (const run of runs) {
    if (!run.cost || run.startedAt === null || run.startedAt < from || run.startedAt >= to) continue;
    const split = splitCostLines(run.cost.lines, run.cost.totalUsd);
    spend.cloudUsd += split.cloudUsd;
    spend.dbuUsd += split.dbuUsd;
    spend.totalUsd += split.totalUsd;
  }
  return spend;
}
