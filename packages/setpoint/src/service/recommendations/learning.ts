import { defaultOptimizerSettings } from '../../optimizer/recommend.js';

/**
 * Learning runs after the cold start, as the optimizer counts them (LEARNING → OPTIMIZING): the one
 * setting the project summaries, the demo and the benches read.
 */
export const learningRuns = defaultOptimizerSettings.learningRuns;

/** Runs a project spends before Setpoint trusts its model: the cold start plus the learning runs. */
export const runsUntilLearned = 1 + learningRuns;
