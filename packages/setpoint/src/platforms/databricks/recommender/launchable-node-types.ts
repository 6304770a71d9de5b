import { DatabricksApiError } from '../api/api-error.js';
import type { DatabricksClient } from '../api/client.js';
import { launchableNodeTypeIds } from '../api/schema.js';
import type { LaunchableNodeTypeReader } from './databricks-recommender.js';

/** A workspace's node types change with Databricks releases and region launches, not between runs. */
const freshForMs = 60 * 60 * 1000;

/**
 * The node types each workspace can launch, read through `clusters/list-node-types` at most once an hour
 * per workspace. A workspace that refuses or lacks the endpoint (403, 404) cannot say: null, and nothing
 * is left out; any other failure is thrown, so the recommendation is retried like any transient error.
 */
export function cachedLaunchableNodeTypes(
  clientOf: (workspaceId: string) => Promise<Pick<DatabricksClient, 'listNodeTypes'>>,
  now: () => number = Date.now,
): LaunchableNodeTypeReader {
  const cache = new Map<string, { readAt: number; launchable: ReadonlySet<string> | null }>();
  return async (workspaceId) => {
    const cached = cache.get(workspaceId);
    if (cached && now() - cached.readAt < freshForMs) return cached.launchable;
    let launchable: ReadonlySet<string> | null;
    try {
      launchable = launchableNodeTypeIds(await (await clientOf(workspaceId)).listNodeTypes());
    } catch (error) {
      if (!(error instanceof DatabricksApiError) || ![403, 404].includes(error.httpStatus)) throw error;
      launchable = null;
    }
    // An empty list says nothing about what the workspace can launch.
    if (launchable?.size === 0) launchable = null;
    cache.set(workspaceId, { readAt: now(), launchable });
    return launchable;
  };
}
