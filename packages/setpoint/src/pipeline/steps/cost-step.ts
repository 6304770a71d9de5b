import { PermanentJobError } from '../../queue/job-queue.js';
import {
  advanceRun,
  loadRun,
  type PipelineDependencies,
  permanentIfInvalid,
  projectOf,
} from '../pipeline-context.js';

/** `run.cost`: what the run cost, priced by its platform's coster; then the run asks for a recommendation. */
export function costStep(deps: PipelineDependencies) {
  return async ({ runId }: { runId: string }): Promise<void> => {
    const run = await loadRun(deps, runId);
    if (run.cost === null) {
      const inputs = await deps.runs.inputsOf(runId);
      const profile = inputs?.profile;
      if (!profile || !run.cluster) throw new PermanentJobError(`run ${runId} has no profile to cost`);
      const { workspace } = await projectOf(deps, run.projectId);
      const cost = await deps.platforms
        .forWorkspace(workspace)
        .coster.cost({ profile, cluster: run.cluster.facts, clusterReport: inputs.clusterReport, workspace })
        .catch(permanentIfInvalid);
      // the overhead key is always written (null: none), so the start-up backfill of runs costed before
      // the split (`overhead-backfill.ts`) finds only those, never a run costed since
      const recorded = { ...cost, overhead: cost.overhead ?? null };
      const changes = { cost: recorded, pipelineState: 'MODELING' } as const;
      if (!(await advanceRun(deps, run, changes, 'run.cost'))) return;
    }
    await deps.queue.enqueue(
      'run.request-recommendation',
      { runId },
      { idempotencyKey: `run.request-recommendation:${runId}` },
    );
  };
}
