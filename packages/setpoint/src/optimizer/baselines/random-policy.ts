import type { SearchPolicyFactory } from '../search-policy.js';

/** Tries a uniformly random untried configuration each run (the search literature's floor). */
export const randomPolicy: SearchPolicyFactory = (context) => ({
  next(observations) {
    const tried = new Set(observations.map((observation) => observation.candidateId));
    const untried = context.candidates.filter((candidate) => !tried.has(candidate.id));
    if (untried.length === 0) return { candidateId: context.coldStartId };
    return { candidateId: untried[context.random.int(untried.length)]!.id };
  },
});
