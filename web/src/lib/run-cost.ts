import type { RunCostResource } from '@setpoint/api-contract';
import { formatMinutes, formatUsd } from './format.js';

/** A run's cost in its two parts: over the Spark application's span, and billed outside it. */
export interface RunCostSplit {
  applicationUsd: number;
  overheadUsd: number;
  overheadMinutes: number;
}

/** The split, or null when the whole cost is over the application's span (no overhead reported). */
export function runCostSplit(cost: RunCostResource | null | undefined): RunCostSplit | null {
  if (!cost?.overhead) return null;
  const overheadUsd = Math.min(cost.overhead.usd, cost.total_usd);
  return {
    applicationUsd: cost.total_usd - overheadUsd,
    overheadUsd,
    overheadMinutes: cost.overhead.seconds / 60,
  };
}

/** "$0.17 Spark application + $0.59 overhead (9.8 min outside the application)". */
export function formatRunCostSplit(split: RunCostSplit): string {
  return (
    `${formatUsd(split.applicationUsd)} Spark application + ${formatUsd(split.overheadUsd)} overhead ` +
    `(${formatMinutes(split.overheadMinutes)} outside the application)`
  );
}
