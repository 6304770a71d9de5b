import { medianOfKnown, rounded } from '@setpoint/foundation/statistics';
import type { ProjectRun } from 'setpoint/demo/loop-records';
import { isLearningRun } from 'setpoint/service/recommender/learning';
import type { JobBankProject, LastDecision } from './jobbank-project.js';

/** Where one project's saving went: what learning cost, what it found, and what it kept. */
export interface ProjectSaving {
  platform: JobBankProject['platform'];
  job: string;
  project: string;
  seed: number;
  /** 1 − last run's cost ÷ the cold start's (the figure the goal's median is taken over). */
  saving: number | null;
  /** Runs configured by a learning recommendation (the cold start excluded). */
  learningRuns: number;
  /** The learning runs' mean cost ÷ the cold start's (1.2 = each cost 20% more than leaving the job alone). */
  learningRunCostVsColdStart: number | null;
  /** 1 − the cheapest run that met the SLA ÷ the cold start's: the best saving the loop has seen hold. */
  bestSavingSeen: number | null;
  /** The last run's cost ÷ the cheapest run that met the SLA, − 1 (0: it ends on the cheapest it found). */
  lastOverCheapestMet: number | null;
  /** Some run ran on a cluster Setpoint changed; false: the job never moved. */
  moved: boolean;
  lastDecision: LastDecision | null;
}

const metSla = (run: ProjectRun, slaMinutes: number | null) =>
  run.status === 'SUCCESS' &&
  run.runtimeMinutes !== null &&
  run.costUsd !== null &&
  (slaMinutes === null || run.runtimeMinutes <= slaMinutes);

export function projectSaving(project: JobBankProject): ProjectSaving {
  const costed = project.runs.filter((run) => run.costUsd !== null);
  const first = costed[0]?.costUsd ?? null;
  const last = costed.at(-1)?.costUsd ?? null;
  const learning = project.runs.filter((run, index) => index > 0 && isLearningRun(run.learning, index));
  const learningCosts = learning.flatMap((run) => (run.costUsd === null ? [] : [run.costUsd]));
  const met = costed.filter((run) => metSla(run, project.slaMinutes)).map((run) => run.costUsd as number);
  const cheapestMet = met.length > 0 ? Math.min(...met) : null;
  const ratio = (value: number | null, to: number | null) =>
    value === null || !to ? null : rounded(value / to);
  return {
    platform: project.platform,
    job: project.job,
    project: project.project,
    seed: project.seed,
    saving: first && last !== null ? rounded(1 - last / first) : null,
    learningRuns: learning.length,
    learningRunCostVsColdStart: ratio(
      learningCosts.length > 0 ? learningCosts.reduce((a, b) => a + b, 0) / learningCosts.length : null,
      first,
    ),
    bestSavingSeen: first && cheapestMet !== null ? rounded(1 - cheapestMet / first) : null,
    lastOverCheapestMet: last !== null && cheapestMet ? rounded(last / cheapestMet - 1) : null,
    moved: project.runs.some(
      (run) => run.recommendationId !== null && project.changeRecommendationIds.has(run.recommendationId),
    ),
    lastDecision: project.lastDecision ?? null,
  };
}

/**
 * The saving broken down over the projects: how many end on the cheapest configuration they saw meet the
 * SLA, how many never moved, what learning runs cost, and the median saving the loops saw hold (the
 * ceiling a keep/move rule could reach with what it tried).
 */
export function savingBreakdown(projects: readonly JobBankProject[]) {
  const perProject = projects.map(projectSaving);
  const medianOf = (pick: (entry: ProjectSaving) => number | null) => medianOfKnown(perProject.map(pick));
  return {
    medianSaving: medianOf((entry) => entry.saving),
    /** Median over projects of 1 − the cheapest run that met the SLA ÷ the cold start. */
    medianBestSavingSeen: medianOf((entry) => entry.bestSavingSeen),
    /** Median over projects of the learning runs' mean cost ÷ the cold start's. */
    medianLearningRunCostVsColdStart: medianOf((entry) => entry.learningRunCostVsColdStart),
    /** Projects whose last run cost more than 5% over the cheapest run of theirs that met the SLA. */
    endAboveCheapestMet: perProject.filter((entry) => (entry.lastOverCheapestMet ?? 0) > 0.05).length,
    neverMoved: perProject.filter((entry) => !entry.moved).length,
    perProject,
  };
}
