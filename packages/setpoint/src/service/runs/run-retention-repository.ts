import type { Kysely } from 'kysely';
import type { Database } from '../../store/database-schema.js';

/** What the run retention reads and deletes (the runs table and what anchors a project's model). */
export function createRunRetentionRepository(db: Kysely<Database>) {
  return {
    /**
     * Processed runs (DONE or FAILED) created before `createdBefore`, oldest first, after the keyset
     * `after`: the candidates of one retention batch.
     */
    processedBefore(createdBefore: number, limit: number, after: { createdAt: number; id: string } | null) {
      let query = db
        .selectFrom('runs')
        .select(['id', 'project_id', 'created_at', 'eventlog_blob_key'])
        .where('pipeline_state', 'in', ['DONE', 'FAILED'])
        .where('created_at', '<', createdBefore);
      if (after)
        query = query.where((eb) =>
          eb.or([
            eb('created_at', '>', after.createdAt),
            eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)]),
          ]),
        );
      return query.orderBy('created_at').orderBy('id').limit(limit).execute();
    },

    /** When the project's learning was last reset (runs before then no longer teach it). */
    async learningSince(projectId: string): Promise<number> {
      const row = await db
        .selectFrom('projects')
        .select('learning_reset_at')
        .where('id', '=', projectId)
        .executeTakeFirst();
      return Number(row?.learning_reset_at ?? 0);
    },

    /**
     * The runs the project's recommendations are anchored on: the newest recommendation's, and those
     * of recommendations still PENDING (`pending` tells whether there are any).
     */
    async recommendationAnchors(projectId: string): Promise<{ runIds: string[]; pending: boolean }> {
      const newest = await db
        .selectFrom('recommendations')
        .select(['based_on_run_id', 'state'])
        .where('project_id', '=', projectId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .execute();
      const pending = await db
        .selectFrom('recommendations')
        .select('based_on_run_id')
        .where('project_id', '=', projectId)
        .where('state', '=', 'PENDING')
        .execute();
      const runIds = [...newest, ...pending].flatMap((row) =>
        row.based_on_run_id ? [row.based_on_run_id] : [],
      );
      return { runIds, pending: pending.length > 0 };
    },

    /**
     * Deletes these runs' rows, and in the same transaction unlinks the recommendations based on them:
     * `based_on_run_id` becomes null and `based_on_run_pruned_at` says when, so no recommendation names
     * a run that no longer exists. Answers how many runs went and how many recommendations were unlinked.
     */
    async deleteRuns(
      ids: readonly string[],
      now = Date.now(),
    ): Promise<{ runs: number; recommendationsUnlinked: number }> {
      if (ids.length === 0) return { runs: 0, recommendationsUnlinked: 0 };
      return db.transaction().execute(async (trx) => {
        const unlinked = await trx
          .updateTable('recommendations')
          .set({ based_on_run_id: null, based_on_run_pruned_at: now })
          .where('based_on_run_id', 'in', ids)
          .executeTakeFirst();
        const deleted = await trx.deleteFrom('runs').where('id', 'in', ids).executeTakeFirst();
        return {
          runs: Number(deleted.numDeletedRows),
          recommendationsUnlinked: Number(unlinked.numUpdatedRows),
        };
      });
    },
  };
}

export type RunRetentionRepository = ReturnType<typeof createRunRetentionRepository>;
