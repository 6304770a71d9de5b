import { describe, expect, it } from 'vitest';
import { catchUpStart, SimClock } from './sim-clock.js';

const hour = 3_600_000;
const day = 24 * hour;

/** A real clock the test moves by hand. */
function realClock(start: number) {
  let now = start;
  return { now: () => now, pass: (ms: number) => (now += ms) };
}

describe('SimClock', () => {
  it('runs at its speed from where it started', () => {
    const real = realClock(1_000 * day);
    const clock = new SimClock(600, 1_000 * day, real.now);
    real.pass(6_000);
    expect(clock.now()).toBe(1_000 * day + hour);
    expect(clock.realDelayUntil(1_000 * day + 2 * hour)).toBe(6_000);
  });

  it('never ahead of real time: fast until it reaches real time, then real time', () => {
    const real = realClock(1_000 * day);
    const start = catchUpStart(600, real.now());
    // an hour of real time at 600× back, never more than 30 days
    expect(real.now() - start).toBe(599 * hour);
    expect(real.now() - catchUpStart(3600, real.now())).toBe(30 * day);
    expect(catchUpStart(0, real.now())).toBe(real.now());
    const clock = new SimClock(600, start, real.now, true);
    real.pass(30 * 60_000);
    // half an hour real: 300 simulated hours, still behind real time
    expect(clock.now()).toBe(start + 300 * hour);
    expect(clock.now()).toBeLessThan(real.now());
    // a run finishing before the catch-up is reached at the clock's speed
    expect(clock.realDelayUntil(start + 310 * hour)).toBe(60_000);
    // it reaches real time an hour after it started (599 hours at 600×); a run finishing after that, at
    // real time: two hours after the start is an hour and a half from now
    expect(clock.realDelayUntil(1_000 * day + 2 * hour)).toBe(90 * 60_000);
    real.pass(2 * hour);
    expect(clock.now()).toBe(real.now());
    real.pass(90_000);
    expect(clock.now()).toBe(real.now());
    // a jump forward cannot pass real time either
    clock.advance(day);
    expect(clock.now()).toBe(real.now());
  });

  it('without the ceiling runs ahead of real time, as tests and benches want', () => {
    const real = realClock(1_000 * day);
    const clock = new SimClock(600, real.now(), real.now);
    real.pass(60_000);
    expect(clock.now() - real.now()).toBe(599 * 60_000);
  });
});
