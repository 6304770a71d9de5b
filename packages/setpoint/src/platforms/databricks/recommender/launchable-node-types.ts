import { launchableNodeTypes, type NodeTypeFacts } from '@setpoint/validity/databricks';
import { cachedOfferedTypes } from '../../../service/recommender/offered-types-cache.js';
import { DatabricksApiError } from '../api/api-error.js';
import type { DatabricksClient } from '../api/client.js';
import type { LaunchableNodeTypeReader } from './databricks-cluster-model.js';

/**
 * The node types each workspace can launch, with what `clusters/list-node-types` says of each (cores,
 * memory, local disks, Photon), read at most once an hour per workspace (`cachedOfferedTypes`). A
 * transient refusal (429, 5xx) is thrown, so the recommendation is retried like any transient error.
 * Anything else — a workspace with no host or credentials (runs uploaded by hand), a refused or missing
 * endpoint, an empty list — cannot say: null, nothing is left out.
 */
export function cachedLaunchableNodeTypes(
  clientOf: (workspaceId: string) => Promise<Pick<DatabricksClient, 'listNodeTypes'>>,
  now: () => number = Date.now,
): LaunchableNodeTypeReader {
  return cachedOfferedTypes(
    async (workspaceId: string) =>
      new Map<string, NodeTypeFacts>(
        launchableNodeTypes(await (await clientOf(workspaceId)).listNodeTypes()).map((facts) => [
          facts.nodeTypeId,
          facts,
        ]),
      ),
    {
      isTransient: (error) => error instanceof DatabricksApiError && error.retryable,
      cacheKey: (workspaceId) => workspaceId,
      now,
    },
  );
}
