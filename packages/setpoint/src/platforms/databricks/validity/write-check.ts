import { DatabricksApiError } from '../api/api-error.js';
import type { ClusterPolicy, NewClusterSpec } from '../api/schema.js';
import type { WorkspaceConnection } from '../connection/workspace-connection.js';
import { assertClusterAccepted } from './accepted-cluster.js';
import { listedWorkspaceFacts } from './workspace-facts.js';

/** A read that cannot say (refused, missing): null; a transient failure is thrown, so the write is retried. */
async function readOrNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof DatabricksApiError && !error.retryable) return null;
    throw error;
  }
}

/**
 * Checks a cluster against the workspace it is about to be written to: its cloud, the node types
 * `clusters/list-node-types` lists now and the compute policy the cluster names. Throws a ValidationError
 * naming every rule Databricks would refuse it for (`assertClusterAccepted`; `running` is the cluster the
 * job has now); what the workspace will not say is not judged.
 */
export async function checkBeforeWrite(
  connection: Pick<WorkspaceConnection, 'client' | 'workspace'>,
  cluster: NewClusterSpec,
  what: string,
  running: NewClusterSpec | null,
): Promise<void> {
  const { client, workspace } = connection;
  const listed = await readOrNull(() => client.listNodeTypes());
  const policyId = cluster.policy_id;
  const policy: ClusterPolicy | null =
    typeof policyId === 'string' ? await readOrNull(() => client.getClusterPolicy(policyId)) : null;
  const cloud = workspace.cloud.toLowerCase() === 'azure' ? 'azure' : 'aws';
  assertClusterAccepted(cluster, listedWorkspaceFacts({ cloud, listed, policy }), what, running);
}
