/**
 * A named reason to leave a candidate configuration out of a recommendation (the Karpenter way: a chain
 * of filters, each recording why it dropped what it dropped). The core brings filters every platform
 * shares; a platform brings its own (Databricks: Photon's break-even).
 */
export interface CandidateFilter<T> {
  readonly name: string;
  /** Why `candidate` is left out, or null to keep it. */
  reject(candidate: T): string | null;
}

/** How many candidates a filter dropped, with one reason as an example. */
export interface FilterOutcome {
  filter: string;
  dropped: number;
  example: string;
}

/** Tallies the drops of a chain of filters as candidates go through it. */
export class FilterTally<T> {
  readonly #outcomes = new Map<string, FilterOutcome>();

  constructor(private readonly filters: readonly CandidateFilter<T>[]) {}

  /** True when every filter keeps the candidate; the first that rejects it is counted. */
  keeps(candidate: T): boolean {
    for (const filter of this.filters) {
      const reason = filter.reject(candidate);
      if (reason === null) continue;
      const outcome = this.#outcomes.get(filter.name);
      if (outcome) outcome.dropped += 1;
      else this.#outcomes.set(filter.name, { filter: filter.name, dropped: 1, example: reason });
      return false;
    }
    return true;
  }

  get outcomes(): FilterOutcome[] {
    return [...this.#outcomes.values()];
  }
}
