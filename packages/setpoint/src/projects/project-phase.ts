import type { ProjectPhase } from './project-settings.js';

/** Runs a project needs before Setpoint moves from learning to optimizing. */
export const learningRuns = 1;

/**
 * Phase after a run is processed. Only the service-level transitions live here (setup → learning →
 * optimizing); REBASING and MONITORING come from the recommender's judgement.
 */
export function phaseAfterRun(current: ProjectPhase, processedRuns: number): ProjectPhase {
  if (current === 'PENDING_SETUP') return processedRuns > learningRuns ? 'OPTIMIZING' : 'LEARNING';
  if (current === 'LEARNING' && processedRuns > learningRuns) return 'OPTIMIZING';
  return current;
}
