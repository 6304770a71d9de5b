import type { Logger } from '../../logging/logger.js';
import type { BlobStore } from '../../store/blobs/blob-store.js';
import type { AuditEntry } from '../audit/audit-repository.js';
import { type RunMarker, runComesBefore } from './run-records.js';
import type { createRunRepository } from './run-repository.js';
import type { RunRetentionRepository } from './run-retention-repository.js';

const dayMs = 86_400_000;
const batch = 500;

type Candidate = Awaited<ReturnType<RunRetentionRepository['processedBefore']>>[number];

export interface RunRetentionDeps {
  retention: RunRetentionRepository;
  runs: Pick<ReturnType<typeof createRunRepository>, 'analyzedWindow'>;
  /** Where each project's learning summary has folded up to, for which learning reset (runs after it are kept). */
  learningSummaries: {
    find(projectId: string): Promise<{ learningSince: number; marker: RunMarker } | undefined>;
  };
  blobs: Pick<BlobStore, 'deleteBundle'>;
  audit: { record(entry: AuditEntry): Promise<void> };
  logger?: Pick<Logger, 'info'>;
  /** How many analyzed runs a recommendation learns from (`recommendationWindowRuns`). */
  windowRuns: number;
}

export interface RunRetentionResult {
  deleted: number;
  eventLogsDeleted: number;
  /** Old runs kept because a project's model or recommendation reads them. */
  kept: number;
  /** Older recommendations whose run went: they keep everything but the run's id (see `deleteRuns`). */
  recommendationsUnlinked: number;
}

/**
 * Deletes processed runs (their rows and event-log blobs) created more than `days` ago; 0 keeps them
 * forever. A run is kept, however old, while the optimizer reads it: it is among its project's newest
 * `windowRuns` analyzed runs since the last learning reset (what the recommender and the fleet prior
 * learn from), it is newer than the last run folded into its project's learning summary (not folded
 * yet), a project's newest recommendation or a pending one is based on it, or its project has a
 * recommendation pending (whose window is not settled yet). So a pass never changes what a
 * recommendation would be; it only drops runs that have left every learning window. Runs still being
 * processed are never candidates. An older recommendation based on a deleted run keeps everything it
 * holds but the run's id, which becomes null with `based_on_run_pruned_at` set. One audit entry and one
 * log line per pass that deleted something.
 */
export async function pruneRuns(
  deps: RunRetentionDeps,
  days: number,
  now = Date.now(),
): Promise<RunRetentionResult> {
  const result: RunRetentionResult = { deleted: 0, eventLogsDeleted: 0, kept: 0, recommendationsUnlinked: 0 };
  if (days === 0) return result;
  const cutoff = now - days * dayMs;
  const protectedOf = new Map<string, (run: Candidate) => boolean>();
  const protectedRuns = async (projectId: string) => {
    const known = protectedOf.get(projectId);
    if (known) return known;
    const anchors = await deps.retention.recommendationAnchors(projectId);
    if (anchors.pending) {
      protectedOf.set(projectId, () => true);
      return () => true;
    }
    const since = await deps.retention.learningSince(projectId);
    const window = await deps.runs.analyzedWindow(projectId, { since, limit: deps.windowRuns });
    const ids = new Set([...window.map((run) => run.id), ...anchors.runIds]);
    // Runs after the learning summary's marker have not been folded into it yet: the next recommendation
    // folds them, so they stay until then (runs before the window that never reach a summary are kept
    // only once the project has one: until its first fold they go as they always did).
    const summary = await deps.learningSummaries.find(projectId);
    const marker = summary?.learningSince === since ? summary.marker : null;
    const unfolded = (run: Candidate) =>
      marker !== null &&
      Number(run.created_at) >= since &&
      runComesBefore(marker, { createdAt: Number(run.created_at), id: run.id });
    const kept = (run: Candidate) => ids.has(run.id) || unfolded(run);
    protectedOf.set(projectId, kept);
    return kept;
  };
  let after: { createdAt: number; id: string } | null = null;
  for (;;) {
    const candidates = await deps.retention.processedBefore(cutoff, batch, after);
    const last = candidates.at(-1);
    if (!last) break;
    after = { createdAt: Number(last.created_at), id: last.id };
    const expired: typeof candidates = [];
    for (const run of candidates) {
      const kept = await protectedRuns(run.project_id);
      if (kept(run)) result.kept += 1;
      else expired.push(run);
    }
    // Blobs first: a failure leaves the row (and so the key) for the next pass, never an orphan.
    for (const run of expired) {
      if (!run.eventlog_blob_key) continue;
      await deps.blobs.deleteBundle(run.eventlog_blob_key);
      result.eventLogsDeleted += 1;
    }
    const gone = await deps.retention.deleteRuns(
      expired.map((run) => run.id),
      now,
    );
    result.deleted += gone.runs;
    result.recommendationsUnlinked += gone.recommendationsUnlinked;
    if (candidates.length < batch) break;
  }
  if (result.deleted > 0) {
    const detail = {
      deleted_runs: result.deleted,
      deleted_event_logs: result.eventLogsDeleted,
      kept_for_learning: result.kept,
      recommendations_unlinked: result.recommendationsUnlinked,
      retention_days: days,
      created_before: cutoff,
    };
    await deps.audit.record({
      entity: 'organization',
      entityId: 'run_retention',
      action: 'runs_pruned',
      actor: 'retention',
      detail,
    });
    deps.logger?.info(detail, 'run retention deleted old runs');
  }
  return result;
}
