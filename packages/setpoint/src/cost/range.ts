/** A quantity known only within bounds: `expected` is the best estimate, low ≤ expected ≤ high. */
export interface Range {
  low: number;
  expected: number;
  high: number;
}

export function exactly(value: number): Range {
  return { low: value, expected: value, high: value };
}

export function addRanges(a: Range, b: Range): Range {
  return { low: a.low + b.low, expected: a.expected + b.expected, high: a.high + b.high };
}

/** Product of two non-negative ranges. */
export function multiplyRanges(a: Range, b: Range): Range {
  return { low: a.low * b.low, expected: a.expected * b.expected, high: a.high * b.high };
}

export const zeroRange: Range = exactly(0);
