import type { Random } from '@setpoint/foundation/random';
import type { Candidate, Observation } from './types.js';

/** What a search policy may know: the catalog, the runtime limit, and where the job started. */
export interface SearchContext {
  candidates: readonly Candidate[];
  slaSeconds: number;
  coldStartId: string;
  random: Random;
}

/** Chooses the configuration of the next run from the outcomes of the runs it chose so far. */
export interface SearchPolicy {
  next(observations: readonly Observation[]): string;
}

export type SearchPolicyFactory = (context: SearchContext) => SearchPolicy;
