import { describe, expect, it } from 'vitest';
import {
  defaultNoiseLevels,
  learnNoiseLevels,
  nearestNoiseLevel,
  withinConfigurationVariance,
} from './noise-levels.js';

describe('noise levels', () => {
  it('keeps the default ladder until three fleet jobs have repeats', () => {
    expect(learnNoiseLevels([0.01, 0.02])).toEqual(defaultNoiseLevels);
  });

  it('spans the fleet jobs from quiet to noisy, plus a rare level noisier than any of them', () => {
    const variances = [0.0001, 0.0002, 0.0004, 0.001, 0.004, 0.01, 0.02];
    const levels = learnNoiseLevels(variances);
    expect(levels.variances[0]).toBeLessThanOrEqual(0.0004);
    expect(levels.variances.at(-1)).toBeGreaterThan(0.02);
    expect(levels.weights.reduce((sum, weight) => sum + weight, 0)).toBeCloseTo(1, 10);
    expect(levels.weights.at(-1)).toBeLessThan(0.1);
    for (let i = 1; i < levels.variances.length; i++) {
      expect(levels.variances[i]).toBeGreaterThan(levels.variances[i - 1] as number);
    }
  });

  it('pins a job to the level nearest its own spread', () => {
    const levels = { variances: [0.0004, 0.004, 0.04], weights: [0.4, 0.4, 0.2] };
    expect(nearestNoiseLevel(levels, 0.0005)).toBe(0);
    expect(nearestNoiseLevel(levels, 0.03)).toBe(2);
  });

  it('pools the spread of repeated runs and ignores configurations run once', () => {
    expect(withinConfigurationVariance([[1], [2]])).toBeUndefined();
    expect(withinConfigurationVariance([[1, 3], [5], [2, 2, 2]])).toBeCloseTo(2 / 3, 10);
  });
});
