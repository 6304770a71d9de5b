/** What a platform offers changes with its releases and region launches, not between runs. */
const freshForMs = 60 * 60 * 1000;
/** How long "cannot say" stands before the platform is asked again. */
const unknownForMs = 5 * 60 * 1000;

/** The instance types a platform can launch for a key (a workspace; an account and release), or null. */
export type OfferedTypesReader<Key, Offered extends OfferedTypes = ReadonlySet<string>> = (
  key: Key,
) => Promise<Offered | null>;

/** The types offered, by name (a set of names, or a map of names to what the platform says of each). */
export type OfferedTypes = { readonly size: number };

/**
 * The instance types a platform says it can launch, read at most once an hour per key (`cacheKey` names
 * it in the cache). A transient failure (`isTransient`) is thrown, so the recommendation is retried like
 * any transient error. Anything else — no credentials, a refused or missing endpoint, an empty list —
 * cannot say: null, nothing is left out, and the key is asked again after five minutes.
 */
export function cachedOfferedTypes<Key, Offered extends OfferedTypes = ReadonlySet<string>>(
  read: (key: Key) => Promise<Offered>,
  options: { isTransient: (error: unknown) => boolean; cacheKey: (key: Key) => string; now?: () => number },
): OfferedTypesReader<Key, Offered> {
  const now = options.now ?? Date.now;
  const cache = new Map<string, { until: number; offered: Offered | null }>();
  return async (key) => {
    const id = options.cacheKey(key);
    const cached = cache.get(id);
    if (cached && now() < cached.until) return cached.offered;
    let offered: Offered | null;
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
