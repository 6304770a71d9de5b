/** At most `limit` items, evenly spaced and in order (all of them when there are no more, or no limit). */
export function evenlySpaced<T>(items: readonly T[], limit: number | undefined): T[] {
  if (limit === undefined || items.length <= limit) return [...items];
  return Array.from({ length: limit }, (_, i) => items[Math.floor((i * items.length) / limit)] as T);
}
