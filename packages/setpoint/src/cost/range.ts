/** A quantity known only within bounds: `expected` is the best estimate, low ≤ expected ≤ high. */
export interface CostRange {
  low: number;
  expected: number;
  high: number;
}

export function exactly(value: number): CostRange {
  return { low: value, expected: value, high: value };
}

export function addRanges(a: CostRange, b: CostRange): CostRange {
  return { low: a.low + b.low, expected: a.expected + b.expected, high: a.high + b.high };
}

/** Product of two non-negative ranges. */
export function multiplyRanges(a: CostRange, b: CostRange): CostRange {
  return { low: a.low * b.low, expected: a.expected * b.expected, high: a.high * b.high };
}

export const zeroRange: CostRange = exactly(0);
