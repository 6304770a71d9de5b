import type { NodeUsageSummary } from '../system-tables/system-tables-reader.js';
import type { ClusterReport } from './cluster-report.js';

type Ran = NonNullable<ClusterReport['node_types_ran']>;

/** The node timeline's node types and minutes, as a cluster report records them. */
export function nodeTypesRanOf(nodes: readonly NodeUsageSummary[]): Ran {
  return nodes
    .filter((group) => group.nodeType !== 'unknown')
    .map((group) => ({ node_type: group.nodeType, driver: group.driver, node_minutes: group.nodeMinutes }));
}

/**
 * The node type that ran a role for most of its node-minutes, when it is not the one requested (an
 * alternate of a flexible node type); null when the requested one ran, or nothing was recorded.
 */
export function nodeTypeThatRan(ran: Ran | undefined, driver: boolean, requested: string): string | null {
  const minutes = new Map<string, number>();
  for (const entry of ran ?? [])
    if (entry.driver === driver)
      minutes.set(entry.node_type, (minutes.get(entry.node_type) ?? 0) + entry.node_minutes);
  const [most] = [...minutes].sort((a, b) => b[1] - a[1]);
  return most && most[0] !== requested && most[1] > 0 ? most[0] : null;
}
