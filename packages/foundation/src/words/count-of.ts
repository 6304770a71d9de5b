/**
 * A count with its noun in the right number, the way every surface words it: "1 run", "3 runs",
 * "0 runs", "1 worker". `plural` is for nouns that do not take an "s" ("1 analysis", "2 analyses").
 */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
