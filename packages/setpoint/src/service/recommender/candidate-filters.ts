/**
 * A named reason to leave a candidate configuration out of a recommendation (the Karpenter way: a chain
 * of filters, each recording why it dropped what it dropped). The core brings filters every platform
 * shares; a platform brings its own (Databricks: Photon's evidence and break-even).
 */
export interface CandidateFilter<T> {
  readonly name: string;
  /** Why `candidate` is left out, or null to keep it. */
  reject(candidate: T): string | null;
}

/** How many candidates a filter dropped, with the first reasons as examples. */
export interface FilterOutcome {
  filter: string;
  dropped: number;
  /** The first reason recorded (kept for readers of the older shape). */
  example: string;
  /** Up to `maxExamples` reasons, in the order the candidates were dropped. */
  examples?: string[];
}

/** Reasons kept per filter: enough for a reader to see what kind of candidate it removes. */
const maxExamples = 3;

/** Tallies the drops of a chain of filters as candidates go through it. */
export class FilterTally<T> {
  readonly #outcomes = new Map<string, FilterOutcome>();
  readonly #seen = new Set<T>();

  constructor(private readonly filters: readonly CandidateFilter<T>[]) {}

  /**
   * True when every filter keeps the candidate; the first that rejects it is counted (once per
   * candidate, however often the chain is asked about it).
   */
  keeps(candidate: T): boolean {
    for (const filter of this.filters) {
      const reason = filter.reject(candidate);
      if (reason === null) continue;
      if (this.#seen.has(candidate)) return false;
      this.#seen.add(candidate);
      const outcome = this.#outcomes.get(filter.name);
      if (outcome) {
        outcome.dropped += 1;
        if ((outcome.examples?.length ?? 0) < maxExamples) outcome.examples?.push(reason);
      } else {
        this.#outcomes.set(filter.name, {
          filter: filter.name,
          dropped: 1,
          example: reason,
          examples: [reason],
        });
      }
      return false;
    }
    return true;
  }

  get outcomes(): FilterOutcome[] {
    return [...this.#outcomes.values()];
  }
}

/** "spill-memory removed 3 (…); photon-evidence removed 24 (…)": what the chain left out, for an explanation. */
export function describeFiltered(outcomes: readonly FilterOutcome[]): string | null {
  const dropped = outcomes.filter((outcome) => outcome.dropped > 0);
  if (dropped.length === 0) return null;
  return `Left out: ${dropped
    .map((outcome) => `${outcome.filter} removed ${outcome.dropped} (e.g. ${outcome.example})`)
    .join('; ')}`;
}
