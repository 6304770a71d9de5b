import type { CandidateFilter } from '../../../service/recommender/candidate-filters.js';
import type { DatabricksClusterShape } from './cluster-shape.js';

interface PoolCandidate {
  choice: DatabricksClusterShape;
  allowed: boolean;
}

/**
 * A cluster on an instance pool takes its node type and market from the pool: a candidate with another
 * node type or market would leave the pool, so it is left out and the pool kept.
 */
export function instancePoolFilter(
  poolId: string,
  current: DatabricksClusterShape,
): CandidateFilter<PoolCandidate> {
  return {
    name: 'instance-pool',
    reject({ choice, allowed }) {
      if (!allowed) return null;
      if (choice.workerNodeType !== current.workerNodeType)
        return `${describeChoice(choice)}: the cluster runs on instance pool ${poolId}, whose node type is ${current.workerNodeType}`;
      if (
        choice.market !== current.market ||
        choice.firstOnDemand !== current.firstOnDemand ||
        choice.driverNodeType !== current.driverNodeType
      )
        return `${describeChoice(choice)}: instance pool ${poolId} decides the market and the driver`;
      return null;
    },
  };
}

function describeChoice(choice: DatabricksClusterShape): string {
  const size = choice.autoscale
    ? `${choice.autoscale.minWorkers}–${choice.autoscale.maxWorkers}`
    : String(choice.workers);
  return `${size} × ${choice.workerNodeType} ${choice.market}${choice.photon ? ' Photon' : ''}`;
}
