import { describe, expect, it } from 'vitest';
import {
  coefficientOfVariation,
  linearFit,
  mean,
  median,
  medianOfKnown,
  medianOfSorted,
  pearson,
  quantile,
  quantileOfSorted,
  rounded,
} from './statistics.js';

describe('statistics', () => {
  it('pearson is 1 for a rising line, -1 for a falling one, null when a side is constant', () => {
    const xs = [1, 2, 3, 4, 5];
    expect(pearson(xs.map((x) => [x, 3 * x + 2] as const))).toBeCloseTo(1, 12);
    expect(pearson(xs.map((x) => [x, -x] as const))).toBeCloseTo(-1, 12);
    expect(pearson(xs.map((x) => [x, 7] as const))).toBeNull();
    expect(
      pearson([
        [1, 2],
        [2, 3],
      ]),
    ).toBeNull();
  });

  it('pearson matches the textbook value for a small sample', () => {
    // x = 1..4, y = 2,4,5,4: sxy = 3.5, sxx = 5, syy = 4.75 → r = 3.5 / sqrt(23.75)
    expect(
      pearson([
        [1, 2],
        [2, 4],
        [3, 5],
        [4, 4],
      ]),
    ).toBeCloseTo(3.5 / Math.sqrt(23.75), 12);
  });

  it('median, coefficient of variation and the least-squares line', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
    // an unknown value is left out, not read as 0
    expect(medianOfKnown([null, 5, 1, null, 3])).toBe(3);
    expect(medianOfKnown([null])).toBeNull();
    expect(medianOfSorted(Float64Array.from([1, 2, 3, 10]))).toBe(2.5);
    expect(medianOfSorted([])).toBeNaN();
    expect(coefficientOfVariation([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(2 / 5, 12);
    const fit = linearFit([
      [0, 1],
      [1, 3],
      [2, 5],
    ]);
    expect(fit?.slope).toBeCloseTo(2, 12);
    expect(fit?.intercept).toBeCloseTo(1, 12);
    expect(
      linearFit([
        [1, 1],
        [1, 2],
      ]),
    ).toBeNull();
  });

  it('quantile interpolates between order statistics (type 7) and agrees with the median', () => {
    expect(quantile([4, 1, 3, 2], 0)).toBe(1);
    expect(quantile([4, 1, 3, 2], 1)).toBe(4);
    expect(quantile([4, 1, 3, 2], 0.5)).toBe(2.5);
    // position (5 − 1) × 0.9 = 3.6: 40 + 0.6 × (50 − 40)
    expect(quantile([10, 20, 30, 40, 50], 0.9)).toBeCloseTo(46, 12);
    expect(quantile([3, Number.POSITIVE_INFINITY, 1], 0.5)).toBe(3);
    expect(quantile([], 0.5)).toBeNaN();
    expect(quantileOfSorted(Float64Array.from([1, 2, 3, 10]), 0.5)).toBe(medianOfSorted([1, 2, 3, 10]));
  });

  it('mean is null without values; rounded keeps four decimals and reports what is not a number as null', () => {
    expect(mean([1, 2, 6])).toBe(3);
    expect(mean([])).toBeNull();
    expect(rounded(2 / 3)).toBe(0.6667);
    expect(rounded(Number.NaN)).toBeNull();
    expect(rounded(Number.POSITIVE_INFINITY)).toBeNull();
    expect(rounded(null)).toBeNull();
    expect(rounded(undefined)).toBeNull();
  });
});
