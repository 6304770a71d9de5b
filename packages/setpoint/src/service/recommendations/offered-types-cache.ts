/** What a platform offers changes with its releases and region launches, not between runs. */
const freshForMs = 60 * 60 * 1000;
/** How long "cannot say" stands before the platform is asked again. */
const unknownForMs = 5 * 60 * 1000;

/** The instance types a platform can launch for a key (a workspace; an account and release), or null. */
export type OfferedTypesReader<Key> = (key: Key) => Promise<ReadonlySet<string> | null>;

/**
 * The instance types a platform says it can launch, read at most once an hour per key (`cacheKey` names
 * it in the cache). A transient failure (`isTransient`) is thrown, so the recommendation is retried like
 * any transient error. Anything else — no credentials, a refused or missing endpoint, an empty list —
 * cannot say: null, nothing is left out, and the key is asked again after five minutes.
 */
export function cachedOfferedTypes<Key>(
  read: (key: Key) => Promise<ReadonlySet<string>>,
  options: { isTransient: (error: unknown) => boolean; cacheKey: (key: Key) => string; now?: () => number },
): OfferedTypesReader<Key> {
  const now = options.now ?? Date.now;
  const cache = new Map<string, { until: number; offered: ReadonlySet<string> | null }>();
  return async (key) => {
    const id = options.cacheKey(key);
    const cached = cache.get(id);
    if (cached && now() < cached.until) return cached.offered;
    let offered: ReadonlySet<string> | null;
    try {
      offered = await read(key);
    } catch (error) {
      if (options.isTransient(error)) throw error;
      offered = null;
    }
    // An empty list says nothing about what can be launched.
    if (offered?.size === 0) offered = null;
    cache.set(id, { until: now() + (offered ? freshForMs : unknownForMs), offered });
    return offered;
  };
}
