/** Exponential backoff with ±50 % jitter: delay · 2^(attempt−1) · U(0.5, 1.5). */
export function retryDelayMs(
  attempt: number,
  baseDelaySeconds: number,
  random: () => number = Math.random,
): number {
  const exponential = baseDelaySeconds * 1000 * 2 ** Math.min(attempt - 1, 16);
  return Math.round(exponential * (0.5 + random()));
}
