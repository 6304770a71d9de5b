import type { BlobStore } from '../../store/blobs/blob-store.js';
import type { createRunRepository } from './run-repository.js';

export interface EventLogRetention {
  /** Days after which a processed run's event log is deleted; 0 keeps logs forever (count limit aside). */
  days: number;
  /** Event logs of only each project's newest N runs are kept; 0 means no count limit. */
  runsPerProject: number;
}

const dayMs = 86_400_000;
const batch = 500;

/**
 * Deletes the event logs that fall outside retention and forgets their blob keys. Only processed runs
 * lose their log: the parse step is the one reader, and a run's profile, cost and model inputs stay.
 * Returns how many logs were deleted.
 */
export async function pruneEventLogs(
  deps: { runs: ReturnType<typeof createRunRepository>; blobs: BlobStore },
  retention: EventLogRetention,
  now = Date.now(),
): Promise<number> {
  if (retention.days === 0 && retention.runsPerProject === 0) return 0;
  const createdBefore = retention.days === 0 ? Number.NEGATIVE_INFINITY : now - retention.days * dayMs;
  let deleted = 0;
  for (;;) {
    const expired = await deps.runs.eventLogsPastRetention({
      createdBefore,
      keepNewest: retention.runsPerProject,
      limit: batch,
    });
    for (const run of expired) {
      if (run.eventlogBlobKey) await deps.blobs.deleteBundle(run.eventlogBlobKey);
      await deps.runs.forgetEventLog(run.id);
    }
    deleted += expired.length;
    if (expired.length < batch) return deleted;
  }
}
