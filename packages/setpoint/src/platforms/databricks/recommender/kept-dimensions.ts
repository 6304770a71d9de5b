import type { DatabricksClusterShape } from '../cluster-shape/cluster-shape.js';

/**
 * The sentence an explanation ends with about what Setpoint leaves as the team set it: the driver's node
 * type (it does not model the driver's own needs) and `first_on_demand` (it does not model what losing a
 * spot driver, or a worker the team keeps on-demand, costs a run).
 */
export function keptDimensionsNote(
  current: Pick<DatabricksClusterShape, 'driverNodeType' | 'market' | 'firstOnDemand'>,
): string {
  const firstOnDemand =
    current.market === 'on-demand'
      ? 'the driver on-demand (first_on_demand) when a spot market is chosen'
      : `first_on_demand ${current.firstOnDemand}`;
  return `Kept as the job runs them: the driver ${current.driverNodeType} and ${firstOnDemand}.`;
}
