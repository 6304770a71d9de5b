/** One line of a run's cost breakdown as the cost engine reports it. */
export interface CostLineLike {
  item: string;
  usd: number;
}

export interface CostSplit {
  cloudUsd: number;
  dbuUsd: number;
  totalUsd: number;
  /** The cost range for the run when the breakdown carries one (spot and autoscaling uncertainty). */
  lowUsd: number | null;
  highUsd: number | null;
}

/**
 * Splits a run cost into cloud (instances, storage) and Databricks DBU charges. The cost engine
 * names its lines "cloud …", "Databricks DBUs (…)", "total low" and "total high".
 */
export function splitCostLines(lines: readonly CostLineLike[], totalUsd: number): CostSplit {
  let cloudUsd = 0;
  let dbuUsd = 0;
  let lowUsd: number | null = null;
  let highUsd: number | null = null;
  for (const line of lines) {
    const item = line.item.toLowerCase();
    if (item === 'total low') lowUsd = line.usd;
    else if (item === 'total high') highUsd = line.usd;
    else if (item.includes('dbu')) dbuUsd += line.usd;
    else if (item.startsWith('cloud')) cloudUsd += line.usd;
  }
  return { cloudUsd, dbuUsd, totalUsd, lowUsd, highUsd };
}
