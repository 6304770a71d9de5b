import type { LearningSummary } from '../../service/recommendations/learning-summary-repository.js';
import { emptyFoldedStatistics } from '../../service/recommender/learning-summary.js';
import type { RecommendationInput } from '../../service/recommender/recommender.js';
import { type AnalyzedRunRecord, type RunMarker, runComesBefore } from '../../service/runs/run-records.js';
import type { PipelineDependencies } from '../pipeline-context.js';
import { recommenderRunOf } from './recommender-run.js';

type FoldDependencies = Pick<
  PipelineDependencies,
  'runs' | 'platforms' | 'learningSummaries' | 'recommendationWindowRuns'
>;

const markerOf = (run: AnalyzedRunRecord): RunMarker => ({ createdAt: run.createdAt, id: run.id });

/**
 * The project's learning summary to read with a recommendation's window, after folding into it the runs
 * that left the window since the last fold (only when the window ends at the project's newest analyzed
 * run: a backlog's older run never moves the summary). Undefined when the summary does not end right
 * before the window's first run (an older run's window, or runs left unfolded between them), so the
 * recommendation learns from the window alone. A summary from before the project's learning reset is
 * discarded. Nothing is read when the recommender cannot fold.
 */
export async function learningSummaryBefore(
  deps: FoldDependencies,
  context: {
    project: RecommendationInput['project'];
    learningSince: number;
    window: readonly AnalyzedRunRecord[];
  },
): Promise<LearningSummary | undefined> {
  const { project, learningSince, window } = context;
  const first = window[0];
  const last = window.at(-1);
  if (!deps.platforms.forWorkspace(project.workspace).recommender.fold || !first || !last) return undefined;
  const start = markerOf(first);
  let summary = await deps.learningSummaries.find(project.id);
  if (summary && summary.learningSince !== learningSince) {
    await deps.learningSummaries.discardStale(project.id, learningSince);
    summary = undefined;
  }
  const [newest] = await deps.runs.analyzedWindow(project.id, { since: learningSince, limit: 1 });
  if (newest?.id === last.id) summary = await foldBefore(deps, context, start, summary);
  if (!summary || !runComesBefore(summary.marker, start)) return undefined;
  const gap = await deps.runs.analyzedBetween(project.id, {
    since: learningSince,
    after: summary.marker,
    before: start,
    limit: 1,
  });
  return gap.length === 0 ? summary : undefined;
}

/**
 * Folds the analyzed runs after the summary's marker and before `start` into it, a page of
 * `recommendationWindowRuns` runs at a time (a project that got thousands of runs without a
 * recommendation costs pages, not its whole history at once), storing each page's result.
 */
async function foldBefore(
  deps: FoldDependencies,
  context: { project: RecommendationInput['project']; learningSince: number },
  start: RunMarker,
  found: LearningSummary | undefined,
): Promise<LearningSummary | undefined> {
  const { project, learningSince } = context;
  const { recommender } = deps.platforms.forWorkspace(project.workspace);
  const fold = recommender.fold?.bind(recommender);
  if (!fold) return found;
  const pageRuns = Math.max(1, deps.recommendationWindowRuns);
  let summary = found;
  for (;;) {
    const page = await deps.runs.analyzedBetween(project.id, {
      since: learningSince,
      after: summary?.marker ?? null,
      before: start,
      limit: pageRuns,
    });
    const last = page.at(-1);
    if (!last) return summary;
    const statistics = await fold({
      project,
      folded: summary?.statistics ?? emptyFoldedStatistics(),
      runs: page.map(recommenderRunOf),
    });
    if (!statistics) return summary;
    const next: LearningSummary = {
      projectId: project.id,
      learningSince,
      marker: markerOf(last),
      foldedRuns: (summary?.foldedRuns ?? 0) + page.length,
      statistics,
    };
    // Another recommendation of the project folded first: continue from what it stored.
    summary = (await deps.learningSummaries.advance(summary, next))
      ? next
      : await deps.learningSummaries.find(project.id);
    if (summary && summary.learningSince !== learningSince) return undefined;
  }
}
