/** Linear-interpolation quantile (the common "type 7"); Infinity values sort last. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const a = sorted[lower] as number;
  const b = sorted[upper] as number;
  if (lower === upper || a === b) return a;
  return a + (b - a) * (position - lower);
}

export function share(flags: readonly boolean[]): number {
  if (flags.length === 0) return Number.NaN;
  return flags.filter(Boolean).length / flags.length;
}

/** JSON-friendly number: four decimals, null when undefined or not finite. */
export function rounded(value: number | undefined): number | null {
  if (value === undefined || !Number.isFinite(value)) return null;
  return Math.round(value * 10_000) / 10_000;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}
