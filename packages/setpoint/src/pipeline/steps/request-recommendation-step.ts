import { advanceRun, loadRun, type PipelineDependencies, projectOf } from '../pipeline-context.js';

/**
 * `run.request-recommendation`: a processed run asks for a recommendation based on it, and is done. A run
 * from before `projects reset` is history only: it does not ask. The model is fitted and the phase moved by
 * the recommendation (`recommendation.generate`).
 */
export function requestRecommendationStep(deps: PipelineDependencies) {
  return async ({ runId }: { runId: string }): Promise<void> => {
    const run = await loadRun(deps, runId);
    const { project } = await projectOf(deps, run.projectId);
    if (run.createdAt >= (project.learningResetAt ?? 0)) {
      await deps.recommendations.request(project.id, {
        actor: 'pipeline',
        basedOnRunId: runId,
        idempotencyKey: `run:${runId}`,
      });
    }
    if (run.pipelineState !== 'DONE')
      await advanceRun(deps, run, { pipelineState: 'DONE' }, 'run.request-recommendation');
  };
}
