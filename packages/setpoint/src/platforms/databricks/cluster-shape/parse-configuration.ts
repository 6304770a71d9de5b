import { type NewCluster, newClusterSchema } from '@setpoint/api-contract/databricks';
import { ValidationError } from '@setpoint/foundation/errors';

/** A stored `new_cluster` (from a cluster report or described from a run's facts), parsed at the edge. */
export function parseNewCluster(raw: unknown): NewCluster | null {
  if (raw === null || raw === undefined) return null;
  const parsed = newClusterSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(
      'CLUSTER_CONFIGURATION_INVALID',
      `invalid cluster configuration: ${issue ? `${issue.path.join('.') || 'new_cluster'} ${issue.message}` : 'validation failed'}`,
    );
  }
  return parsed.data;
}
