import type { RunProfile } from '../../eventlog/run-profile.js';
import { PermanentJobError } from '../../queue/job-queue.js';
import { assertPlausibleTimes } from '../../service/runs/plausible-times.js';
import type { StoredClusterFacts } from '../../service/runs/run-records.js';
import { storedProfileColumns } from '../../service/runs/stored-profile.js';
import { parseJsonColumn } from '../../store/json-column.js';
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
  clusterReport: string | null,
  profile: RunProfile,
) {
  try {
    return deps.platforms
      .forWorkspace(workspace)
      .runs.describeRun(parseJsonColumn<unknown>(clusterReport), profile);
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
    // a run created with its profile (no event log) still has its cluster to describe
    if (run.profile === null || run.cluster_config === null) {
      const given = parseJsonColumn<RunProfile>(run.profile);
      if (!given && !run.eventlog_blob_key)
        throw new PermanentJobError(`run ${runId} has no stored event log`);
      const profile =
        given ??
        (await deps.blobs
          .withLocalCopy(run.eventlog_blob_key as string, (directory) => deps.profiler.profile(directory))
          .catch(permanentIfInvalid));
      const { workspace } = await projectOf(deps, run.project_id);
      const described = describedRun(deps, workspace, run.cluster_report, profile);
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
          ...storedProfileColumns(profile),
          cluster_config: JSON.stringify(stored),
          cluster_timeline: JSON.stringify(described.timeline),
          started_at: described.startedAt,
          ended_at: described.endedAt,
          status: run.status ?? described.status,
          input_bytes: profile.totals.inputBytes,
          recommendation_id: described.recommendationId,
          pipeline_state: 'COSTING',
        },
        'run.parse',
      );
      if (!written) return;
    }
    await deps.queue.enqueue('run.cost', { runId }, { idempotencyKey: `run.cost:${runId}` });
  };
}
