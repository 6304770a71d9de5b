/**
 * Asks `probe` every 100 ms until it gives a value, and fails naming `what` once `timeoutMs` has passed.
 * A probe that throws fails the wait at once, unless `retryErrors` (a server still starting, a resource
 * not yet there): then it is asked again, and the last error is named on timeout.
 */
export async function pollUntil<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  options: { timeoutMs: number; retryErrors: boolean },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      if (!options.retryErrors) throw error;
      lastError = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
