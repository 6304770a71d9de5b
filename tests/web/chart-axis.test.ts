import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { roundValueAxis } from '../../web/src/lib/chart-axis.js';

describe('a runtime chart’s value axis', () => {
  it('ends on a round tick above the values, so no label sits over the tick below it', () => {
    // ledger-sort's chart: runs up to 21.9 min against a 9-minute SLA drew ticks 0, 5, … 25 and a top at 27
    expect(roundValueAxis(21.9 * 1.2)).toEqual({ max: 30, interval: 10 });
    expect(roundValueAxis(9 * 1.2)).toEqual({ max: 12.5, interval: 2.5 });
    expect(roundValueAxis(0.4)).toEqual({ max: 0.4, interval: 0.1 });
    expect(roundValueAxis(0)).toEqual({ max: 1, interval: 0.2 });
  });

  it('holds any top with at most a few round ticks, the maximum a whole number of them', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-3, max: 1e5, noNaN: true }), (top) => {
        const { max, interval } = roundValueAxis(top);
        expect(max).toBeGreaterThanOrEqual(top - 1e-9);
        const steps = max / interval;
        expect(Math.abs(steps - Math.round(steps))).toBeLessThan(1e-6);
        expect(Math.round(steps)).toBeGreaterThanOrEqual(3);
        expect(Math.round(steps)).toBeLessThanOrEqual(6);
        const mantissa = interval / 10 ** Math.floor(Math.log10(interval) + 1e-12);
        expect([1, 2, 2.5, 5].some((factor) => Math.abs(mantissa - factor) < 1e-9)).toBe(true);
      }),
    );
  });
});
