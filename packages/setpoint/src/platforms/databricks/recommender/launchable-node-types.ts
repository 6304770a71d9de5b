import { cachedOfferedTypes } from '../../../service/recommendations/offered-types-cache.js';
import { DatabricksApiError } from '../api/api-error.js';
import type { DatabricksClient } from '../api/client.js';
import { launchableNodeTypeIds } from '../api/schema.js';
import type { LaunchableNodeTypeReader } from './databricks-recommender.js';

/**
 * The node types each workspace can launch, read through `clusters/list-node-types` at most once an hour
 * per workspace (`cachedOfferedTypes`). A transient refusal (429, 5xx) is thrown, so the recommendation is
 * retried like any transient error. Anything else — a workspace with no host or credentials (runs uploaded
 * by hand), a refused or missing endpoint, an empty list — cannot say: null, nothing is left out.
 */
export function cachedLaunchableNodeTypes(
  clientOf: (workspaceId: string) => Promise<Pick<DatabricksClient, 'listNodeTypes'>>,
  now: () => number = Date.now,
): LaunchableNodeTypeReader {
  return cachedOfferedTypes(
    async (workspaceId: string) => launchableNodeTypeIds(await (await clientOf(workspaceId)).listNodeTypes()),
    {
      isTransient: (error) => error instanceof DatabricksApiError && error.retryable,
      cacheKey: (workspaceId) => workspaceId,
      now,
    },
  );
}
