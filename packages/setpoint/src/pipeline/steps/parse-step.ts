import type { RunProfile } from '../../eventlog/run-profile.js';
import { PermanentJobError } from '../../queue/job-queue.js';
import { assertPlausibleTimes } from '../../service/runs/plausible-times.js';
import type { StoredClusterFacts } from '../../service/runs/run-records.js';
import {
  advanceRun,
  loadRun,
  type PipelineDependencies,
  permanentIfInvalid,
  projectOf,
} from '../pipeline-context.js';

/**
 * The platform's description of the run. A report or log the platform refuses (a missing report, an
 * event log from another cluster) fails the same way on every retry, so it parks at once.
 */
function describedRun(
  deps: PipelineDependencies,
  workspace: Awaited<ReturnType<typeof projectOf>>['workspace'],
  clusterReport: unknown,
  profile: RunProfile,
) {
  try {
    return deps.platforms.forWorkspace(workspace).runs.describeRun(clusterReport, profile);
  } catch (error) {
    return permanentIfInvalid(error);
  }
}

/**
 * `run.parse`: event log → RunProfile; the project's platform reads the run's cluster (facts,
 * configuration, node timeline, outcome) from its report and the profile. Then the cost step.
 */
export function parseStep(deps: PipelineDependencies) {
  return async ({ runId }: { runId: string }): Promise<void> => {
    const run = await loadRun(deps, runId);
    // the parse step stores the profile and the cluster together; a run created with its profile (no event
    // log) still has its cluster to describe
    if (run.cluster === null) {
      const inputs = await deps.runs.inputsOf(runId);
      const given = inputs?.profile ?? null;
      if (!given && !run.eventlogBlobKey) throw new PermanentJobError(`run ${runId} has no stored event log`);
      const profile =
        given ??
        (await deps.blobs
          .withLocalCopy(run.eventlogBlobKey as string, (directory) => deps.profiler.profile(directory))
          .catch(permanentIfInvalid));
      const { workspace } = await projectOf(deps, run.projectId);
      const described = describedRun(deps, workspace, inputs?.clusterReport ?? null, profile);
      // a run dated 2150 or at epoch 0 fails here: it is never costed, and never reaches the model
      try {
        assertPlausibleTimes(profile, described, { toleranceMs: deps.runClockToleranceMs });
      } catch (error) {
        permanentIfInvalid(error);
      }
      const stored: StoredClusterFacts = { facts: described.facts, config: described.configuration };
      const written = await advanceRun(
        deps,
        run,
        {
          profile,
          cluster: stored,
          clusterTimeline: described.timeline,
          startedAt: described.startedAt,
          endedAt: described.endedAt,
          status: run.status ?? described.status,
          inputBytes: profile.totals.inputBytes,
          recommendationId: described.recommendationId,
          pipelineState: 'COSTING',
        },
        'run.parse',
      );
      if (!written) return;
    }
    await deps.queue.enqueue('run.cost', { runId }, { idempotencyKey: `run.cost:${runId}` });
  };
}
