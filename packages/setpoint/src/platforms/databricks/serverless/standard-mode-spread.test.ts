import { describe, expect, it } from 'vitest';
import { priorLogSpread, probabilityStandardMeets, standardModeSpread } from './standard-mode-spread.js';

/** Sample standard deviation of the logs. */
function logSd(runtimes: readonly number[]): number {
  const logs = runtimes.map(Math.log);
  const mu = logs.reduce((sum, x) => sum + x, 0) / logs.length;
  return Math.sqrt(logs.reduce((sum, x) => sum + (x - mu) ** 2, 0) / (logs.length - 1));
}

describe('standardModeSpread', () => {
  it('is the prior alone while no mode has two runs', () => {
    expect(standardModeSpread([150], [160])).toEqual({
      logSpread: priorLogSpread,
      degrees: 0,
      ownWider: false,
    });
    expect(standardModeSpread([], [])).toMatchObject({ logSpread: priorLogSpread, degrees: 0 });
  });

  it("shrinks from the prior towards the job's own variation as runs in either mode accumulate", () => {
    const optimized = [147, 149, 148, 150, 146, 148.5, 149.5, 147.5, 148.2, 147.8, 149.1, 146.6];
    const spreads = [2, 4, 8, 12].map((n) => standardModeSpread(optimized.slice(0, n), [166, 168]).logSpread);
    for (let i = 1; i < spreads.length; i += 1) expect(spreads[i]).toBeLessThan(spreads[i - 1] ?? 0);
    expect(spreads[0]).toBeLessThan(priorLogSpread);
    // never below what the runs themselves vary
    expect(spreads.at(-1)).toBeGreaterThan(logSd(optimized));
  });

  it('levels each mode by its own mean: a mode that runs longer adds no spread', () => {
    const optimized = [100, 102, 98, 101];
    const shifted = standardModeSpread(optimized, [120, 122.4]);
    const level = standardModeSpread(optimized, [100, 102]);
    expect(shifted.logSpread).toBeCloseTo(level.logSpread, 3);
  });

  it("keeps the standard runs' own spread when they vary more than the pooled estimate", () => {
    const spread = standardModeSpread([147, 149, 148, 150, 146, 148.5], [140, 178]);
    expect(spread.ownWider).toBe(true);
    expect(spread.logSpread).toBeCloseTo(logSd([140, 178]), 12);
  });
});

describe('probabilityStandardMeets', () => {
  it("is the log-normal at the standard runs' mean log runtime", () => {
    // the SLA exactly at the geometric mean: one half
    expect(probabilityStandardMeets([100, 121], 110, 0.05)).toBeCloseTo(0.5, 6);
    expect(probabilityStandardMeets([100, 121], 130, 0.05)).toBeGreaterThan(0.99);
    expect(probabilityStandardMeets([], 130, 0.05)).toBe(0);
  });
});
