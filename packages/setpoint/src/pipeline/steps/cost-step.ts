import type { RunProfile } from '../../eventlog/run-profile.js';
import { PermanentJobError } from '../../queue/job-queue.js';
import type { StoredClusterFacts } from '../../service/runs/run-records.js';
import { parseJsonColumn } from '../../store/json-column.js';
import {
  advanceRun,
  loadRun,
  type PipelineDependencies,
  permanentIfInvalid,
  projectOf,
} from '../pipeline-context.js';

/** `run.cost`: what the run cost, priced by its platform's coster; then the model update. */
export function costStep(deps: PipelineDependencies) {
  return async ({ runId }: { runId: string }): Promise<void> => {
    const run = await loadRun(deps, runId);
    if (run.cost === null) {
      const profile = parseJsonColumn<RunProfile>(run.profile);
      const stored = parseJsonColumn<StoredClusterFacts>(run.cluster_config);
      if (!profile || !stored) throw new PermanentJobError(`run ${runId} has no profile to cost`);
      const { workspace } = await projectOf(deps, run.project_id);
      const cost = await deps.coster
        .cost({
          profile,
          cluster: stored.facts,
          clusterReport: parseJsonColumn<unknown>(run.cluster_report),
          workspace,
        })
        .catch(permanentIfInvalid);
      // the overhead key is always written (null: none), so the start-up backfill of runs costed before
      // the split (`overhead-backfill.ts`) finds only those, never a run costed since
      const recorded = { ...cost, overhead: cost.overhead ?? null };
      const changes = { cost: JSON.stringify(recorded), pipeline_state: 'MODELING' } as const;
      if (!(await advanceRun(deps, run, changes, 'run.cost'))) return;
    }
    await deps.queue.enqueue(
      'project.model-update',
      { runId },
      { idempotencyKey: `project.model-update:${runId}` },
    );
  };
}
