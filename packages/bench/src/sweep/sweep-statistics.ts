export function share(flags: readonly boolean[]): number {
  if (flags.length === 0) return Number.NaN;
  return flags.filter(Boolean).length / flags.length;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}
