export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** The middle value (the mean of the two middle ones for an even count); null when there are none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  return medianOfSorted([...values].sort((a, b) => a - b));
}

/** The median of the known values, the unknown (null) left out; null when none is known. */
export function medianOfKnown(values: readonly (number | null)[]): number | null {
  return median(values.filter((value): value is number => value !== null));
}

/** The median of values already sorted ascending (hot paths keep their own sorted typed arrays). */
export function medianOfSorted(sorted: ArrayLike<number>): number {
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Population standard deviation divided by the mean; null when the mean is not positive. */
export function coefficientOfVariation(values: readonly number[]): number | null {
  const average = mean(values);
  if (average === null || average <= 0) return null;
  const variance = values.reduce((sum, value) => sum + (value - average) ** 2, 0) / values.length;
  return Math.sqrt(variance) / average;
}

/** Pearson correlation coefficient; null with fewer than 3 pairs or when either side is constant. */
export function pearson(pairs: ReadonlyArray<readonly [number, number]>): number | null {
  if (pairs.length < 3) return null;
  const mx = mean(pairs.map(([x]) => x))!;
  const my = mean(pairs.map(([, y]) => y))!;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (const [x, y] of pairs) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
    syy += (y - my) ** 2;
  }
  if (sxx === 0 || syy === 0) return null;
  return sxy / Math.sqrt(sxx * syy);
}

/** Least-squares line through (x, y); null with fewer than 2 distinct x values. */
export function linearFit(
  pairs: ReadonlyArray<readonly [number, number]>,
): { slope: number; intercept: number } | null {
  if (pairs.length < 2) return null;
  const mx = mean(pairs.map(([x]) => x))!;
  const my = mean(pairs.map(([, y]) => y))!;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of pairs) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  }
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

/**
 * The q-quantile (0 ≤ q ≤ 1) by linear interpolation between order statistics (the common "type 7", numpy's
 * default; q = 0.5 is the median); Infinity values sort last. NaN when there are none, which `rounded` reports
 * as null.
 */
export function quantile(values: readonly number[], q: number): number {
  return quantileOfSorted(
    [...values].sort((a, b) => a - b),
    q,
  );
}

/** `quantile` of values already sorted ascending (hot paths keep their own sorted arrays). */
export function quantileOfSorted(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const a = sorted[lower]!;
  const b = sorted[upper]!;
  if (lower === upper || a === b) return a;
  return a + (b - a) * (position - lower);
}

/** A figure for a report (JSON-friendly): four decimals; null when missing or not finite. */
export function rounded(value: number | null | undefined): number | null {
  if (value === undefined || value === null || !Number.isFinite(value)) return null;
  return Math.round(value * 10_000) / 10_000;
}
