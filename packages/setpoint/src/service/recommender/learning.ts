import type { ProjectPhase } from '@setpoint/api-contract';
import { defaultOptimizerSettings, learningBudgetOf } from '../../optimizer/recommend.js';
import type { RecommendationDecision } from './recommender.js';

/**
 * Learning runs at most (counting the first recommendation) for a project's SLA-miss budget, as the
 * optimizer counts them (LEARNING → OPTIMIZING): the budgeted phase may end earlier, once the budget is spent.
 */
export function learningRunsFor(learningMissBudget: number): number {
  return learningBudgetOf({ ...defaultOptimizerSettings, learningMissBudget }, [], 0).maxRuns;
}

/** Learning runs at most with the default SLA-miss budget: what the demo and the benches count as learning. */
export const learningRuns = learningRunsFor(defaultOptimizerSettings.learningMissBudget);

/** Runs a project spends at most before Setpoint trusts its model: the cold start plus the learning runs. */
export const runsUntilLearned = 1 + learningRuns;

/**
 * Whether a recommendation was a learning run, as its decision says (`learning.active`: the recommender
 * decides it once, a rebase included, and the explanation and the card say the same). Only for records
 * the decision does not settle, the phase: decisions recorded before the learning budget existed, and
 * rebasing ones recorded before a rebase was part of the learning record (they said `active: false` for
 * what was the first run of a new learning phase). Null when neither says.
 */
export function recommendationIsLearning(recommendation: {
  phase: ProjectPhase | null;
  decision?: Pick<RecommendationDecision, 'learning'> | null | undefined;
}): boolean | null {
  const learning = recommendation.decision?.learning;
  const rebasing = recommendation.phase === 'REBASING';
  if (learning && !(rebasing && learning.rebaseReason === undefined)) return learning.active;
  if (rebasing) return true;
  return recommendation.phase === null ? null : recommendation.phase === 'LEARNING';
}

/**
 * Whether run `index` of a project's history (0: the cold start, before any recommendation) was a learning
 * run: as the recommendation that configured it says (`learning`), or, where no recommendation says (the
 * cold start), whether it is within the cold start and `learningRunCount` learning runs.
 */
export function isLearningRun(
  learning: boolean | null | undefined,
  index: number,
  learningRunCount: number = learningRuns,
): boolean {
  return learning ?? index < 1 + learningRunCount;
}

/**
 * Whether a recommendation was a learning run after the first recommendation: the runs that may knowingly
 * risk the SLA (the first recommendation is held to a higher confidence than any later change).
 */
export function risksSlaByDesign(recommendation: {
  decision?: Pick<RecommendationDecision, 'learning'> | null | undefined;
}): boolean {
  const learning = recommendation.decision?.learning;
  return learning?.active === true && learning.run > 1;
}
