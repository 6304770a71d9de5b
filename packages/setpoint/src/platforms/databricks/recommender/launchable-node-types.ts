import { DatabricksApiError } from '../api/api-error.js';
import type { DatabricksClient } from '../api/client.js';
import { launchableNodeTypeIds } from '../api/schema.js';
import type { LaunchableNodeTypeReader } from './databricks-recommender.js';

/** A workspace's node types change with Databricks releases and region launches, not between runs. */
const freshForMs = 60 * 60 * 1000;
/** How long "cannot say" stands before the workspace is asked again. */
const unknownForMs = 5 * 60 * 1000;

/**
 * The node types each workspace can launch, read through `clusters/list-node-types` at most once an hour
 * per workspace. A transient refusal (429, 5xx) is thrown, so the recommendation is retried like any
 * transient error. Anything else — a workspace with no host or credentials (runs uploaded by hand), a
 * refused or missing endpoint, an empty list — cannot say: null, nothing is left out, and the workspace
 * is asked again after five minutes.
 */
export function cachedLaunchableNodeTypes(
  clientOf: (workspaceId: string) => Promise<Pick<DatabricksClient, 'listNodeTypes'>>,
  now: () => number = Date.now,
): LaunchableNodeTypeReader {
  const cache = new Map<string, { until: number; launchable: ReadonlySet<string> | null }>();
  return async (workspaceId) => {
    const cached = cache.get(workspaceId);
    if (cached && now() < cached.until) return cached.launchable;
    let launchable: ReadonlySet<string> | null;
    try {
      launchable = launchableNodeTypeIds(await (await clientOf(workspaceId)).listNodeTypes());
    } catch (error) {
      if (error instanceof DatabricksApiError && error.retryable) throw error;
      launchable = null;
    }
    // An empty list says nothing about what the workspace can launch.
    if (launchable?.size === 0) launchable = null;
    cache.set(workspaceId, { until: now() + (launchable ? freshForMs : unknownForMs), launchable });
    return launchable;
  };
}
