export function share(flags: readonly boolean[]): number {
  if (flags.length === 0) return Number.NaN;
  return flags.filter(Boolean).length / flags.length;
}
