/** At most `limit` operations in flight; the rest wait in arrival order. */
export function createConcurrencyLimit(limit: number) {
  let active = 0;
  const waiting: Array<() => void> = [];

  async function acquire(): Promise<void> {
    if (active < limit) {
      active += 1;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  }

  function release(): void {
    const next = waiting.shift();
    if (next) next();
    else active -= 1;
  }

  return async function run<T>(operation: () => Promise<T>): Promise<T> {
    await acquire();
    try {
      return await operation();
    } finally {
      release();
    }
  };
}
