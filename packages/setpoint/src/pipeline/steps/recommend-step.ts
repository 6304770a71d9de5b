import type { RunProfile } from '../../eventlog/run-profile.js';
import { phaseAfterRecommendation } from '../../service/projects/project-phase.js';
import type {
  FleetProjectHistory,
  OrganizationFleet,
  RecommenderRun,
} from '../../service/recommendations/recommender.js';
import { type RunRow, toRun } from '../../service/runs/run-records.js';
import { type PipelineDependencies, permanentIfInvalid, projectOf } from '../pipeline-context.js';

function recommenderRunOf(row: RunRow): RecommenderRun {
  const run = toRun(row);
  return {
    id: run.id,
    externalRunId: run.externalRunId,
    status: run.status,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    // the parse step stores both with the profile; analyzed runs always have them
    cluster: run.clusterFacts!,
    clusterConfig: run.clusterConfig,
    profile: JSON.parse(row.profile ?? 'null') as RunProfile,
    cost: run.cost!,
    inputBytes: run.inputBytes,
    recommendationId: run.recommendationId,
  };
}

/** The organization's projects as the fleet prior learns from them: counts always, histories on demand. */
function organizationFleet(deps: PipelineDependencies): OrganizationFleet {
  return {
    runCounts: () => deps.runs.analyzedCounts(),
    async load(projectIds) {
      const histories: FleetProjectHistory[] = [];
      for (const projectId of projectIds) {
        const project = await deps.projectRecords.find(projectId);
        if (!project) continue;
        const rows = await deps.runs.analyzedSince(projectId, project.learningResetAt ?? 0);
        histories.push({
          projectId,
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
 * `recommendation.generate`: fills a PENDING recommendation from every run the project learns from,
 * then moves the project to the phase the recommender judged (the one place the phase moves).
 */
export function recommendStep(deps: PipelineDependencies) {
  return async ({ recommendationId }: { recommendationId: string }): Promise<void> => {
    const rec = await deps.recommendationRecords.find(recommendationId);
    if (rec?.state !== 'PENDING') return;
    const { project, workspace } = await projectOf(deps, rec.projectId);
    const learningSince = project.learningResetAt ?? 0;
    const runs = (await deps.runs.analyzedSince(project.id, learningSince)).map(recommenderRunOf);
    const past = await deps.recommendationRecords.since(project.id, learningSince);
    const output = await deps.recommender
      .recommend({
        project: {
          id: project.id,
          name: project.name,
          phase: project.phase,
          settings: project.settings,
          workspace,
        },
        basedOnRunId: rec.basedOnRunId ?? runs.at(-1)?.id ?? '',
        runs,
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
    if (!(await deps.recommendationRecords.complete(rec.id, output, phaseChange))) return;
    await deps.onRecommendationReady?.(rec.projectId, rec.id);
  };
}
