/** What a platform offers changes with its releases and region launches, not between runs. */
const freshForMs = 60 * 60 * 1000;
/** How long "cannot say" stands before the platform is asked again. */
const unknownForMs = 5 * 60 * 1000;

/** The instance types a platform can launch for a key (a workspace; an account and release), or null. */
export type OfferedTypesReader = (key: string) => Promise<ReadonlySet<string> | null>;

/**
 * The instance types a platform says it can launch, read at most once an hour per key. A transient
 * failure (`isTransient`) is thrown, so the recommendation is retried like any transient error. Anything
 * else — no credentials, a refused or missing endpoint, an empty list — cannot say: null, nothing is left
 * out, and the key is asked again after five minutes.
 */
export function cachedOfferedTypes(
  read: (key: string) => Promise<ReadonlySet<string>>,
  isTransient: (error: unknown) => boolean,
  now: () => number = Date.now,
): OfferedTypesReader {
  const cache = new Map<string, { until: number; offered: ReadonlySet<string> | null }>();
  return async (key) => {
    const cached = cache.get(key);
    if (cached && now() < cached.until) return cached.offered;
    let offered: ReadonlySet<string> | null;
    try {
      offered = await read(key);
    } catch (error) {
      if (isTransient(error)) throw error;
      offered = null;
    }
    // An empty list says nothing about what can be launched.
    if (offered?.size === 0) offered = null;
    cache.set(key, { until: now() + (offered ? freshForMs : unknownForMs), offered });
    return offered;
  };
}
