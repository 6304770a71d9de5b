import { describe, expect, it } from 'vitest';
import { afterFirstRecommendation, type LoopRun } from './after-first-recommendation.js';

const run = (runtime: number, costUsd: number, overrides: Partial<LoopRun> = {}): LoopRun => ({
  runtime,
  completed: true,
  slaTime: 10,
  costUsd,
  coldCostUsd: 1,
  coldRuntime: 9,
  optimumCostUsd: 0.5,
  ...overrides,
});

describe('afterFirstRecommendation', () => {
  it('counts every run from the first recommendation on, learning runs included, and never the cold start', () => {
    const figures = afterFirstRecommendation([
      [run(30, 1), run(9, 0.8), run(12, 0.6), run(10, 0.5)],
      [run(9, 1), run(8, 0.9)],
    ]);
    expect(figures.runs).toBe(4);
    // 12 min against a 10-min SLA is the one miss; the cold start's 30 min is not Setpoint's run
    expect(figures.slaViolationRate).toBe(0.25);
    expect(figures.runtimeOverSla.max).toBe(1.2);
  });

  it('charges a failed run with a rerun on the cold start: as a miss, in time and in cost', () => {
    const figures = afterFirstRecommendation([[run(9, 1), run(4, 0.2, { completed: false })]]);
    expect(figures.slaViolationRate).toBe(1);
    // 4 minutes until it failed, then the cold start's 9
    expect(figures.runtimeOverSla.max).toBe(1.3);
    // it cost 0.2 + 1 against 1 staying: 0.2 lost of the 0.5 + 0.5 possible
    expect(figures.capturedSaving).toBe(-0.2);
  });

  it('captures the share of the possible saving over the whole episode', () => {
    // possible: 0.5 on each of the 4 runs (the cold start's included: an oracle reaches 3/4); captured: 0, 0, 0.25, 0.5
    const figures = afterFirstRecommendation([[run(9, 1), run(9, 1), run(9, 0.75), run(9, 0.5)]]);
    expect(figures.capturedSaving).toBe(0.375);
    // a search that spends more than staying loses: a 3× learning run outweighs a run at the optimum
    const costly = afterFirstRecommendation([[run(9, 1), run(3, 3), run(9, 0.5)]]);
    expect(costly.capturedSaving).toBeLessThan(0);
  });

  it('weighs a cheap job like a dear one, and says nothing without a known optimum', () => {
    // the cheap job captures half of what it could, the dear one nothing: 0.5 of 1 + 0 of 1, not 0.5 of 101
    const cheap = [run(9, 1), run(9, 0.5)];
    const dearRun = run(9, 100, { coldCostUsd: 100, optimumCostUsd: 50 });
    expect(afterFirstRecommendation([cheap, [dearRun, dearRun]]).capturedSaving).toBe(0.25);
    const unknown = afterFirstRecommendation([
      [run(9, 1, { optimumCostUsd: null }), run(9, 0.5, { optimumCostUsd: null })],
    ]);
    expect(unknown.capturedSaving).toBeNull();
    expect(afterFirstRecommendation([]).slaViolationRate).toBeNull();
  });

  it('says what the team saved against the cold start whatever the optimum, failed runs rerun', () => {
    // 0, 0.25, 0.5 saved of 1 a run (the cold start's own run included): 0.75 of 3
    const episode = [run(9, 1), run(9, 0.75), run(9, 0.5)];
    expect(afterFirstRecommendation([episode]).savingVsColdStart).toBe(0.25);
    // a cheaper optimum changes the captured share, not what was saved
    const cheaperOptimum = episode.map((entry) => ({ ...entry, optimumCostUsd: 0.25 }));
    expect(afterFirstRecommendation([cheaperOptimum]).savingVsColdStart).toBe(0.25);
    expect(afterFirstRecommendation([cheaperOptimum]).capturedSaving).not.toBe(
      afterFirstRecommendation([episode]).capturedSaving,
    );
    // known without an optimum; a failed run is paid for and rerun: 0.2 + 1 against 1
    const unknown = [
      run(9, 1, { optimumCostUsd: null }),
      run(4, 0.2, { completed: false, optimumCostUsd: null }),
    ];
    expect(afterFirstRecommendation([unknown]).savingVsColdStart).toBe(-0.1);
    expect(afterFirstRecommendation([]).savingVsColdStart).toBeNull();
  });
});
