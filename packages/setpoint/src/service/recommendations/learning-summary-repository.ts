import type { Kysely } from 'kysely';
import type { Database } from '../../store/database-schema.js';
import type { FoldedStatistics } from '../recommender/learning-summary.js';
import type { RunMarker } from '../runs/run-records.js';

/** A project's runs that left its learning window, folded up to `marker` (migration 0083). */
export interface LearningSummary {
  projectId: string;
  /** The learning reset the summary belongs to (0: never reset). */
  learningSince: number;
  marker: RunMarker;
  /** Runs folded since the reset, including those a later rebase dropped from the statistics. */
  foldedRuns: number;
  statistics: FoldedStatistics;
}

export function createLearningSummaryRepository(db: Kysely<Database>) {
  return {
    async find(projectId: string): Promise<LearningSummary | undefined> {
      const row = await db
        .selectFrom('project_learning_summaries')
        .selectAll()
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        projectId: row.project_id,
        learningSince: Number(row.learning_since),
        marker: { createdAt: Number(row.marker_created_at), id: row.marker_run_id },
        foldedRuns: Number(row.folded_runs),
        statistics: JSON.parse(row.statistics) as FoldedStatistics,
      };
    },

    /**
     * Stores `next` if the project's summary is still `previous` (undefined: there is none), so that two
     * recommendations folding at once never add the same runs twice. Returns whether it was stored.
     */
    async advance(previous: LearningSummary | undefined, next: LearningSummary, now = Date.now()) {
      const values = {
        learning_since: next.learningSince,
        marker_created_at: next.marker.createdAt,
        marker_run_id: next.marker.id,
        folded_runs: next.foldedRuns,
        statistics: JSON.stringify(next.statistics),
        updated_at: now,
      };
      if (!previous) {
        const inserted = await db
          .insertInto('project_learning_summaries')
          .values({ project_id: next.projectId, ...values })
          .onConflict((conflict) => conflict.column('project_id').doNothing())
          .executeTakeFirst();
        return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
      }
      const updated = await db
        .updateTable('project_learning_summaries')
        .set(values)
        .where('project_id', '=', previous.projectId)
        .where('learning_since', '=', previous.learningSince)
        .where('marker_created_at', '=', previous.marker.createdAt)
        .where('marker_run_id', '=', previous.marker.id)
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) > 0;
    },

    /** Drops the project's summary if it belongs to another learning reset than `learningSince`. */
    async discardStale(projectId: string, learningSince: number): Promise<void> {
      await db
        .deleteFrom('project_learning_summaries')
        .where('project_id', '=', projectId)
        .where('learning_since', '<>', learningSince)
        .execute();
    },
  };
}

export type LearningSummaryRepository = ReturnType<typeof createLearningSummaryRepository>;
