import type { Random } from '@setpoint/foundation/random';
import type { Candidate, Observation } from './types.js';

/** What a search policy may know: the catalog, the runtime limit, and where the job started. */
export interface SearchContext {
  candidates: readonly Candidate[];
  slaSeconds: number;
  coldStartId: string;
  random: Random;
}

/** What a policy claims about the run it asks for, so benches can check the claim came true. */
export interface PredictionClaim {
  /** P(the run completes within the SLA). */
  probabilityMeetsSla: number;
  /** The 80% interval of the runtime (10th and 90th percentile), seconds. */
  runtimeLowS: number;
  runtimeHighS: number;
}

export interface SearchChoice {
  candidateId: string;
  /** Absent for policies that make no probabilistic claim (the baselines). */
  claim?: PredictionClaim;
  /** Whether the policy takes this run to learn (it may knowingly risk the SLA); absent for the baselines. */
  learning?: boolean;
}

/** Chooses the configuration of the next run from the outcomes of the runs it chose so far. */
export interface SearchPolicy {
  next(observations: readonly Observation[]): SearchChoice;
}

export type SearchPolicyFactory = (context: SearchContext) => SearchPolicy;
