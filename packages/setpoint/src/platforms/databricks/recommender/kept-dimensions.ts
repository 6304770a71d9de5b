import type { DatabricksClusterShape } from '../cluster-shape/cluster-shape.js';

/**
 * The sentence an explanation ends with about what Setpoint leaves as the team set it: `first_on_demand` (it
 * does not model what losing a spot driver, or a worker the team keeps on-demand, costs a run) and the driver's
 * node type when the recommendation keeps it (a changed driver is in the cluster's description, with why), with
 * the reason when the run could not size it (`unsized`).
 */
export function keptDimensionsNote(
  current: Pick<DatabricksClusterShape, 'driverNodeType' | 'market' | 'firstOnDemand'>,
  driver: { written: string | undefined; unsized: string | null },
): string {
  const firstOnDemand =
    current.market === 'on-demand'
      ? 'the driver on-demand (first_on_demand) when a spot market is chosen'
      : `first_on_demand ${current.firstOnDemand}`;
  if (driver.written !== undefined && driver.written !== current.driverNodeType)
    return `Kept as the job runs it: ${firstOnDemand}.`;
  const why = driver.unsized ? ` (${driver.unsized})` : '';
  return `Kept as the job runs them: the driver ${current.driverNodeType}${why} and ${firstOnDemand}.`;
}
