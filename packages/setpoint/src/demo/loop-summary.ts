import { median } from '@setpoint/foundation/statistics';
import { runsUntilLearned } from '../service/recommendations/learning.js';
import type { ProjectRun } from './closed-loop-driver.js';

/** Runs counted as learning: the cold start plus the optimizer's learning runs (one setting). */
export const learningRunCount = runsUntilLearned;

export interface ProjectSummary {
  project: string;
  firstCost: number | null;
  lastCost: number | null;
  /** 1 − last/first cost (0.3 = 30% cheaper). */
  saving: number | null;
  slaMinutes: number | null;
  /** Runs after learning that finished within the SLA, of those after learning. */
  slaMetLastRuns: { met: number; of: number };
  phase: string;
}

export function summarizeProject(
  project: string,
  runs: ProjectRun[],
  slaMinutes: number | null,
  phase: string,
): ProjectSummary {
  const costed = runs.filter((run) => run.costUsd !== null);
  const firstCost = costed[0]?.costUsd ?? null;
  const lastCost = costed.at(-1)?.costUsd ?? null;
  const afterLearning = runs.slice(learningRunCount);
  const met = afterLearning.filter(
    (run) =>
      run.status === 'SUCCESS' &&
      run.runtimeMinutes !== null &&
      (slaMinutes === null || run.runtimeMinutes <= slaMinutes),
  ).length;
  return {
    project,
    firstCost,
    lastCost,
    saving: firstCost && lastCost !== null ? 1 - lastCost / firstCost : null,
    slaMinutes,
    slaMetLastRuns: { met, of: afterLearning.length },
    phase,
  };
}

export function overallSummary(projects: ProjectSummary[]) {
  const runsAfterLearning = projects.reduce((sum, project) => sum + project.slaMetLastRuns.of, 0);
  const violations = projects.reduce(
    (sum, project) => sum + project.slaMetLastRuns.of - project.slaMetLastRuns.met,
    0,
  );
  return {
    medianSaving: median(projects.flatMap((project) => (project.saving === null ? [] : [project.saving]))),
    slaViolationRateAfterLearning: runsAfterLearning ? violations / runsAfterLearning : null,
  };
}
