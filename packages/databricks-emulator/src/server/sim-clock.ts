/**
 * Simulated wall clock: `speed` simulated milliseconds pass per real millisecond, and tests can jump
 * ahead with `advance`. A speed of 0 freezes time so that only `advance` moves it.
 */
export class SimClock {
  private realOrigin: number;
  private simOrigin: number;

  constructor(
    private speed: number,
    startTimeMs: number,
    private readonly realNow: () => number = Date.now,
  ) {
    this.realOrigin = realNow();
    this.simOrigin = startTimeMs;
  }

  now(): number {
    return Math.floor(this.simOrigin + (this.realNow() - this.realOrigin) * this.speed);
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
    return Math.max(0, (atMs - this.now()) / this.speed);
  }
}
