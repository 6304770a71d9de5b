import type { RunCost } from '../../../service/runs/run-records.js';

/** Kept in a billed cost: the list-price DBU charge it replaced (not a DBU line, so never summed). */
export const estimateLineItem = 'estimated Databricks charge before the bill';
const billedPrefix = 'Databricks DBUs as billed';

function isDbuLine(item: string): boolean {
  return item.startsWith('Databricks DBUs');
}

/**
 * A run's cost with its DBU charge as billed: the run's list-price DBU line scaled by what the bill says
 * its cluster cost against what Setpoint estimated for the same cluster life; totals move by the same
 * amount. Revising again starts from the kept estimate, so a restatement replaces the earlier bill.
 */
export function billedCost(
  cost: RunCost,
  cluster: { estimatedDbuUsd: number; billedDbuUsd: number; billedDbus: number },
): RunCost | undefined {
  if (!(cluster.estimatedDbuUsd > 0) || !(cluster.billedDbuUsd >= 0)) return undefined;
  const kept = cost.lines.find((line) => line.item === estimateLineItem);
  const current = cost.lines.find((line) => isDbuLine(line.item));
  if (!current) return undefined;
  const estimateUsd = kept?.usd ?? current.usd;
  const ratio = cluster.billedDbuUsd / cluster.estimatedDbuUsd;
  const billedUsd = estimateUsd * ratio;
  const delta = billedUsd - current.usd;
  const lines = cost.lines
    .filter((line) => line.item !== estimateLineItem)
    .map((line) => {
      if (line === current)
        return {
          item: `${billedPrefix} (${cluster.billedDbus.toFixed(2)} DBU for the cluster)`,
          usd: billedUsd,
        };
      if (line.item === 'total low' || line.item === 'total high') return { ...line, usd: line.usd + delta };
      return line;
    });
  lines.push({ item: estimateLineItem, usd: estimateUsd });
  return { ...cost, totalUsd: cost.totalUsd + delta, lines };
}
