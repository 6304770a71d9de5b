import { medianOfKnown } from '@setpoint/foundation/statistics';
import type { RecommendationRecord } from '../service/recommendations/recommendation-records.js';
import { isLearningRun, recommendationIsLearning } from '../service/recommender/learning.js';
import type { RecommendationDecision } from '../service/recommender/recommender.js';
import { costWithRerun, type LoopEpisode } from './after-first-recommendation.js';
import type { ProjectRun } from './loop-records.js';

/** What of a stored recommendation tells which runs it configured and whether they were learning runs. */
export interface ConfiguringRecommendation {
  id: string;
  state: RecommendationRecord['state'];
  phase: RecommendationRecord['phase'];
  decision: Pick<RecommendationDecision, 'action' | 'learning'> | null;
  basedOnRunId: string | null;
  createdAt: number;
}

/**
 * Each run (oldest first) marked with whether the recommendation that configured it was a learning run
 * (null: no recommendation configured it, as for the cold start). That is the decision made after the run
 * before it, whether it changed the cluster or kept it: the tag a run carries names the configuration it
 * ran on, not the decision to run it — a kept cluster is not written, and a revert writes back an earlier
 * configuration with its tag. Only when no recommendation was made after the run before it (it failed)
 * does the tag the run carries decide.
 *
 * A recommendation in `withheld` was never written (a learning run that waited for a person's approval
 * and was superseded, rejected or still waits): the run after it ran on what the job already had, so the
 * tag it carries decides, and a run that carries none ran on the job's own configuration, no learning run.
 */
export function markLearningRuns<Run extends Pick<ProjectRun, 'id' | 'recommendationId'>>(
  runs: readonly Run[],
  recommendations: readonly ConfiguringRecommendation[],
  withheld: ReadonlySet<string> = new Set(),
): Array<Run & { learning: boolean | null }> {
  const ready = [...recommendations]
    .filter((recommendation) => recommendation.state === 'SUCCESS')
    .sort((a, b) => a.createdAt - b.createdAt);
  const byId = new Map(ready.map((recommendation) => [recommendation.id, recommendation]));
  // the newest of several recommendations made after one run is the one that was acted on
  const madeAfter = new Map(ready.map((recommendation) => [recommendation.basedOnRunId, recommendation]));
  return runs.map((run, index) => {
    const decided = index > 0 ? madeAfter.get(runs[index - 1]?.id ?? null) : undefined;
    const tagged = run.recommendationId ? byId.get(run.recommendationId) : undefined;
    if (decided && withheld.has(decided.id))
      return { ...run, learning: tagged ? recommendationIsLearning(tagged) : false };
    const configuring = decided ?? tagged;
    return { ...run, learning: configuring ? recommendationIsLearning(configuring) : null };
  });
}

/**
 * Runs after learning: those configured by a recommendation that was not a learning run. Where no
 * recommendation says (the cold start), the default learning phase's length decides.
 */
export function runsAfterLearning<Run extends Pick<ProjectRun, 'learning'>>(runs: readonly Run[]): Run[] {
  return runs.filter((run, index) => !isLearningRun(run.learning, index));
}

export interface ProjectSummary {
  project: string;
  firstCost: number | null;
  lastCost: number | null;
  /** 1 − last/first cost (0.3 = 30% cheaper): one run against one run, the last often a learning run. */
  saving: number | null;
  /**
   * 1 − the mean cost of the runs after the first (the first recommendation's run on, learning runs
   * included) ÷ the first run's cost: what the team paid while Setpoint learned and after, not one run. A
   * failed run costs what it cost plus a rerun at the first run's cost, the way a team recovers it.
   */
  savingAfterFirstRecommendation: number | null;
  slaMinutes: number | null;
  /** Runs after learning (`runsAfterLearning`) that finished within the SLA, of those after learning. */
  slaMetLastRuns: { met: number; of: number };
  /**
   * Runs after the first recommendation's run (the third run on), learning runs included, that finished
   * within the SLA: what a team sees of the runs that may knowingly risk it.
   */
  slaMetAfterFirstRecommendation: { met: number; of: number };
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
  const metSla = (run: ProjectRun) =>
    run.status === 'SUCCESS' &&
    run.runtimeMinutes !== null &&
    (slaMinutes === null || run.runtimeMinutes <= slaMinutes);
  const afterLearning = runsAfterLearning(runs);
  const afterFirstRecommendation = runs.slice(2);
  const paidAfterFirst = costed
    .slice(1)
    .flatMap(({ costUsd, status }) =>
      costUsd === null ? [] : [costWithRerun({ costUsd, completed: status === 'SUCCESS' }, firstCost ?? 0)],
    );
  return {
    project,
    firstCost,
    lastCost,
    saving: firstCost && lastCost !== null ? 1 - lastCost / firstCost : null,
    savingAfterFirstRecommendation:
      firstCost && paidAfterFirst.length > 0
        ? 1 - paidAfterFirst.reduce((sum, cost) => sum + cost, 0) / paidAfterFirst.length / firstCost
        : null,
    slaMinutes,
    slaMetLastRuns: { met: afterLearning.filter(metSla).length, of: afterLearning.length },
    slaMetAfterFirstRecommendation: {
      met: afterFirstRecommendation.filter(metSla).length,
      of: afterFirstRecommendation.length,
    },
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
    medianSaving: medianOfKnown(projects.map((project) => project.saving)),
    medianSavingAfterFirstRecommendation: medianOfKnown(
      projects.map((project) => project.savingAfterFirstRecommendation),
    ),
    slaViolationRateAfterLearning: runsAfterLearning ? violations / runsAfterLearning : null,
  };
}

/**
 * A project's runs as a team lives through them, against its SLA (empty without one). The cold start is
 * the project's first run: its cost and runtime stand for what the job would have cost left alone. No
 * hindsight optimum is known through the service, so the episode carries none.
 */
export function loopEpisodeOf(runs: readonly ProjectRun[], slaMinutes: number | null): LoopEpisode {
  const cold = runs[0];
  if (slaMinutes === null || !cold || cold.costUsd === null) return [];
  const coldRuntime = cold.runtimeMinutes ?? slaMinutes;
  return runs
    .filter((run) => run.status !== null && run.costUsd !== null)
    .map((run) => ({
      runtime: run.runtimeMinutes ?? 0,
      completed: run.status === 'SUCCESS' && run.runtimeMinutes !== null,
      slaTime: slaMinutes,
      costUsd: run.costUsd as number,
      coldCostUsd: cold.costUsd as number,
      coldRuntime,
      optimumCostUsd: null,
    }));
}
