import type { CandidateFilter } from '../../../service/recommender/candidate-filters.js';
import type { NewClusterSpec } from '../api/schema.js';
import type { DatabricksClusterShape } from './cluster-shape.js';

/** The filter that keeps the worker node type of a job that lists flexible alternates for it. */
export const flexibleNodeTypesKept = 'flexible-node-types-kept';

/** `worker_node_type_flexibility.alternate_node_type_ids` of a cluster (empty when it lists none). */
export function workerAlternatesOf(cluster: NewClusterSpec | null): string[] {
  const flexibility = (
    cluster as { worker_node_type_flexibility?: { alternate_node_type_ids?: unknown } } | null
  )?.worker_node_type_flexibility;
  const ids = flexibility?.alternate_node_type_ids;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

/**
 * A job with flexible node types keeps its worker node type: its alternates are chosen for that type
 * (same vCPUs, 100–110 % of its memory), Setpoint does not choose alternates, and it never writes the
 * flexibility fields, so another primary would leave the team's alternates behind it (which Databricks
 * refuses). Sizes, market and engine still vary.
 */
export function flexibleNodeTypesFilter(
  base: NewClusterSpec | null,
  current: DatabricksClusterShape,
): CandidateFilter<{ choice: DatabricksClusterShape; allowed: boolean }>[] {
  const alternates = workerAlternatesOf(base);
  if (alternates.length === 0) return [];
  return [
    {
      name: flexibleNodeTypesKept,
      reject({ choice, allowed }) {
        if (!allowed || choice.workerNodeType === current.workerNodeType) return null;
        return `${choice.workerNodeType}: the job lists alternates of ${current.workerNodeType} (${alternates.join(', ')}) in worker_node_type_flexibility; Setpoint keeps its node type and alternates as the team set them`;
      },
    },
  ];
}

/**
 * The past shapes that ran on one of the job's worker alternates (`ClusterModel.shapeThatRan`): the
 * recommender learns from them, and never recommends them (another primary would leave the alternates
 * behind it).
 */
export function ranOnAlternates(
  base: NewClusterSpec | null,
  current: DatabricksClusterShape,
  observed: readonly DatabricksClusterShape[],
): DatabricksClusterShape[] {
  const alternates = new Set(workerAlternatesOf(base));
  return observed.filter(
    (shape) => shape.workerNodeType !== current.workerNodeType && alternates.has(shape.workerNodeType),
  );
}
