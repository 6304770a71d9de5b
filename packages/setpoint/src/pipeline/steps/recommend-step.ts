import type { JobPayloads } from '../../queue/job-queue.js';
import { phaseAfterRecommendation } from '../../service/projects/project-phase.js';
import type { FleetProjectHistory, OrganizationFleet } from '../../service/recommender/recommender.js';
import type { AnalyzedRunRecord } from '../../service/runs/run-records.js';
import { type PipelineDependencies, permanentIfInvalid, projectOf } from '../pipeline-context.js';
import { learningSummaryBefore } from './learning-summary-fold.js';
import { recommenderRunOf } from './recommender-run.js';

/** The organization's projects as the fleet prior learns from them: counts always, histories on demand. */
function organizationFleet(deps: PipelineDependencies): OrganizationFleet {
  return {
    runCounts: () => deps.runs.analyzedCounts(),
    async load(projectIds) {
      const histories: FleetProjectHistory[] = [];
      for (const projectId of projectIds) {
        const project = await deps.projectRecords.find(projectId);
        if (!project) continue;
        const rows = await deps.runs.analyzedWindow(projectId, {
          since: project.learningResetAt ?? 0,
          limit: deps.recommendationWindowRuns,
        });
        histories.push({
          projectId,
          name: project.name,
          settings: project.settings,
          workspace: await deps.workspaces.facts(project.workspaceId),
          runs: rows.map(recommenderRunOf),
        });
      }
      return histories;
    },
  };
}

/**
 * The runs a recommendation learns from: the project's newest `recommendationWindowRuns` analyzed runs when
 * it is computed, or, for a request that named its run (`pinned`), those up to that run (what Setpoint
 * would have said after it). Read with a bounded query, so a project with thousands of runs costs no more
 * to recommend for than one with a few months of daily runs.
 *
 * Not up to the run that asked: runs of one project processed at once ask in either order, and a window
 * ending at the run that asked would leave out a newer run analyzed meanwhile, so the recommendation
 * requested last could know only the older run.
 */
async function learningWindow(
  deps: PipelineDependencies,
  projectId: string,
  since: number,
  pinnedTo: string | null,
): Promise<AnalyzedRunRecord[]> {
  const upTo = pinnedTo ? await deps.runs.analyzedMarker(pinnedTo) : undefined;
  return deps.runs.analyzedWindow(projectId, { since, limit: deps.recommendationWindowRuns, upTo });
}

/**
 * `recommendation.generate`: fills a PENDING recommendation from the window of runs the project learns
 * from, based on the newest run of that window, then moves the project to the phase the recommender
 * judged (the one place the phase moves).
 *
 * Only a recommendation that is the project's newest once stored (none learned from newer runs: see
 * `newestKnowledgeFirst`) moves the phase and is handed on (auto-apply, an approval asked for, a waiting
 * approval superseded). One computed on an older window, finishing after one on a newer window, is kept
 * as history, listed and appliable by a person, but never replaces the newer one: writing it, or asking a
 * person to approve it, would undo a decision made on more runs. The SLA guard needs nothing here: it
 * judges the change that was written, whichever recommendation it came from.
 */
export function recommendStep(deps: PipelineDependencies) {
  return async ({ recommendationId, pinned }: JobPayloads['recommendation.generate']): Promise<void> => {
    const rec = await deps.recommendationRecords.find(recommendationId);
    if (rec?.state !== 'PENDING') return;
    const { project, workspace } = await projectOf(deps, rec.projectId);
    const learningSince = project.learningResetAt ?? 0;
    const window = await learningWindow(deps, project.id, learningSince, pinned ? rec.basedOnRunId : null);
    const runs = window.map(recommenderRunOf);
    const basedOnRunId = (pinned ? rec.basedOnRunId : runs.at(-1)?.id) ?? rec.basedOnRunId ?? '';
    const projectInput = {
      id: project.id,
      name: project.name,
      phase: project.phase,
      settings: project.settings,
      workspace,
    };
    const summary = await learningSummaryBefore(deps, { project: projectInput, learningSince, window });
    const past = await deps.recommendationRecords.since(
      project.id,
      learningSince,
      deps.recommendationWindowRuns,
    );
    const output = await deps.platforms
      .forWorkspace(workspace)
      .recommender.recommend({
        project: projectInput,
        basedOnRunId,
        runs,
        ...(summary ? { earlier: summary.statistics } : {}),
        recommendations: past
          .filter((entry) => entry.id !== rec.id)
          .map((entry) => ({
            id: entry.id,
            state: entry.state,
            basedOnRunId: entry.basedOnRunId,
            configuration: entry.configuration,
            prediction: entry.prediction,
            applyRequestedAt: entry.applyRequestedAt,
          })),
        fleet: organizationFleet(deps),
      })
      .catch(permanentIfInvalid);
    const phase = phaseAfterRecommendation(output.phase);
    const phaseChange =
      phase === project.phase
        ? null
        : {
            projectId: project.id,
            to: phase,
            audit: {
              entity: 'project' as const,
              entityId: project.id,
              action: 'phase',
              actor: 'pipeline',
              detail: { from: project.phase, to: phase, reason: `recommendation ${rec.id}` },
            },
          };
    const outcome = await deps.recommendationRecords.complete(
      rec.id,
      { ...output, basedOnRunId },
      phaseChange,
    );
    if (outcome !== 'newest') return;
    await deps.onRecommendationReady?.(rec.projectId, rec.id);
  };
}
