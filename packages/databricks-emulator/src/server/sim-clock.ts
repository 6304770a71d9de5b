/**
 * Simulated wall clock: `speed` simulated milliseconds pass per real millisecond, and tests can jump
 * ahead with `advance`. A speed of 0 freezes time so that only `advance` moves it.
 *
 * With `neverAhead` the clock never passes the real one: it runs at `speed` until it reaches real time,
 * then at real time (a standalone emulator's runs are never dated in the future).
 */
export class SimClock {
  private realOrigin: number;
  private simOrigin: number;

  constructor(
    private speed: number,
    startTimeMs: number,
    private readonly realNow: () => number = Date.now,
    private readonly neverAhead = false,
  ) {
    this.realOrigin = realNow();
    this.simOrigin = startTimeMs;
  }

  now(): number {
    const real = this.realNow();
    const simulated = Math.floor(this.simOrigin + (real - this.realOrigin) * this.speed);
    return this.neverAhead ? Math.min(simulated, real) : simulated;
  }

  get clockSpeed(): number {
    return this.speed;
  }

  advance(ms: number): void {
    this.simOrigin += ms;
  }

  setSpeed(speed: number): void {
    this.simOrigin = this.now();
    this.realOrigin = this.realNow();
    this.speed = speed;
  }

  /** Real milliseconds until the simulated time `atMs`, or undefined when the clock is frozen. */
  realDelayUntil(atMs: number): number | undefined {
    if (this.speed <= 0) return undefined;
    const atSpeed = this.realOrigin + (atMs - this.simOrigin) / this.speed;
    // held at real time, the clock shows atMs no earlier than real time does
    const reached = this.neverAhead ? Math.max(atSpeed, atMs) : atSpeed;
    return Math.max(0, reached - this.realNow());
  }
}

/** How far back a clock that never runs ahead starts: an hour of real time at `speed`, at most 30 days. */
export function catchUpStart(speed: number, realNow: number): number {
  const hour = 3_600_000;
  return realNow - Math.min(30 * 24 * hour, Math.max(0, speed - 1) * hour);
}
