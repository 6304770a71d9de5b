/**
 * Work keyed by a name (a project) that runs one at a time in this process: each call waits for the one
 * before it with the same key, whatever that one's outcome.
 */
export function oneAtATimeByKey() {
  const running = new Map<string, Promise<unknown>>();
  return async function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = running.get(key) ?? Promise.resolve();
    const mine = before.catch(() => undefined).then(work);
    running.set(key, mine);
    try {
      return await mine;
    } finally {
      if (running.get(key) === mine) running.delete(key);
    }
  };
}
