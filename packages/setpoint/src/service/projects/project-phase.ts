import type { ProjectPhase } from '@setpoint/api-contract';

/**
 * A project's phase is the outcome of its latest recommendation: the recommender judges whether the
 * job is still LEARNING, OPTIMIZING, REBASING or MONITORING, and that is the one place the phase moves
 * (besides `reset`). The first recommendation takes a project out of PENDING_SETUP.
 */
export function phaseAfterRecommendation(recommended: ProjectPhase): ProjectPhase {
  return recommended === 'PENDING_SETUP' ? 'LEARNING' : recommended;
}
