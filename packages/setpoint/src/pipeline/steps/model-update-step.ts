import { advanceRun, loadRun, type PipelineDependencies, projectOf } from '../pipeline-context.js';

/**
 * `project.model-update`: a processed run asks for a recommendation based on it. A run from before
 * `projects reset` is history only: it does not. The phase is the recommendation's to move.
 */
export function modelUpdateStep(deps: PipelineDependencies) {
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
      await advanceRun(deps, run, { pipelineState: 'DONE' }, 'project.model-update');
  };
}
