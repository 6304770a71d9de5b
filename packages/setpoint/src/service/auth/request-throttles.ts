import { RateLimitedError } from '@setpoint/foundation/errors';

/** A 429 with the seconds to wait, which the error handler sends as `Retry-After`. */
export function rateLimited(message: string, retryAfterSeconds: number): RateLimitedError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new RateLimitedError(`${message}; retry in ${seconds} s`, {
    details: { retryAfterSeconds: seconds },
  });
}

/**
 * At most `max` events per key in each `windowMs` window (webhook deliveries per workspace). In
 * memory, per process: behind several API processes each keeps its own count.
 */
export class WindowCounter {
  readonly #windows = new Map<string, { startedAt: number; count: number }>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one event; throws a 429 once the key's window is full. */
  hit(key: string, what: string): void {
    const now = this.now();
    let window = this.#windows.get(key);
    if (!window || now - window.startedAt >= this.windowMs) {
      if (this.#windows.size > 100_000) this.#windows.clear();
      window = { startedAt: now, count: 0 };
      this.#windows.set(key, window);
    }
    window.count += 1;
    if (window.count > this.max) {
      throw rateLimited(
        `${what}: more than ${this.max} in ${this.windowMs / 1000} s`,
        (window.startedAt + this.windowMs - now) / 1000,
      );
    }
  }
}

/**
 * Exponential backoff after repeated failures of one key (a sign-in name from one address, an
 * address): the first `free` failures cost nothing, then each next attempt must wait 1, 2, 4 … s,
 * at most `maxDelayMs`. A success clears the key.
 */
export class FailureBackoff {
  readonly #failures = new Map<string, { count: number; lastAt: number }>();

  constructor(
    private readonly free: number,
    private readonly maxDelayMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds before `key` may try again (0 when it may now). */
  waitMs(key: string): number {
    const entry = this.#failures.get(key);
    if (!entry || entry.count < this.free) return 0;
    const delay = Math.min(this.maxDelayMs, 1000 * 2 ** (entry.count - this.free));
    const wait = entry.lastAt + delay - this.now();
    if (this.now() - entry.lastAt > this.maxDelayMs * 4) {
      this.#failures.delete(key);
      return 0;
    }
    return Math.max(0, wait);
  }

  fail(key: string): void {
    if (this.#failures.size > 100_000) this.#failures.clear();
    const entry = this.#failures.get(key) ?? { count: 0, lastAt: 0 };
    this.#failures.set(key, { count: entry.count + 1, lastAt: this.now() });
  }

  succeed(key: string): void {
    this.#failures.delete(key);
  }
}
