import { type Kysely, type Selectable, sql } from 'kysely';
import type { ApplyIntentsTable, Database } from '../../store/database-schema.js';
import { newId } from '../../store/ids.js';
import { parseJsonColumn } from '../../store/json-column.js';
import type { ApplyIntent, ApplyIntentState, NewApplyIntent } from './applied-change-records.js';

function toIntent(row: Selectable<ApplyIntentsTable>): ApplyIntent {
  return {
    id: row.id,
    projectId: row.project_id,
    platform: row.platform,
    kind: row.kind as ApplyIntent['kind'],
    recommendationId: row.recommendation_id,
    actor: row.actor,
    state: row.state as ApplyIntentState,
    configuration: parseJsonColumn<Record<string, unknown>>(row.configuration),
    undoes: row.undoes,
    reason: row.reason,
    outcome: row.outcome,
    changeId: row.change_id,
    leaseUntil: row.lease_until,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Data access for apply intents: the write-ahead record of each write, and the one pending intent per
 * project that is the project's apply lock on both databases.
 */
export function createApplyIntentRepository(db: Kysely<Database>) {
  return {
    /** A pending intent for the project, or null when another one is pending (the project is locked). */
    async tryBegin(input: NewApplyIntent, leaseMs: number): Promise<ApplyIntent | null> {
      const now = Date.now();
      const row = {
        id: newId('int'),
        project_id: input.projectId,
        platform: input.platform,
        kind: input.kind,
        recommendation_id: input.recommendationId,
        actor: input.actor,
        state: 'pending',
        configuration: null,
        undoes: null,
        reason: null,
        outcome: null,
        change_id: null,
        lease_until: now + leaseMs,
        created_at: now,
        updated_at: now,
      };
      const inserted = await db
        .insertInto('apply_intents')
        .values(row)
        // the index's own predicate, as a literal: a bound value would not name the partial index
        .onConflict((conflict) =>
          conflict.column('project_id').where('state', '=', sql.lit('pending')).doNothing(),
        )
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1 ? toIntent(row) : null;
    },

    async pendingOf(projectId: string): Promise<ApplyIntent | undefined> {
      const row = await db
        .selectFrom('apply_intents')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('state', '=', 'pending')
        .executeTakeFirst();
      return row ? toIntent(row) : undefined;
    },

    /** Pending intents whose lease ran out: their processes stopped mid-write (oldest first). */
    async lapsed(limit = 100): Promise<ApplyIntent[]> {
      const rows = await db
        .selectFrom('apply_intents')
        .selectAll()
        .where('state', '=', 'pending')
        .where('lease_until', '<', Date.now())
        .orderBy('created_at')
        .limit(limit)
        .execute();
      return rows.map(toIntent);
    },

    /**
     * The project's newest intent that failed after staging its write and was never recorded: its write may
     * have landed with the answer lost.
     */
    async lastUnrecordedFailure(projectId: string): Promise<ApplyIntent | undefined> {
      const row = await db
        .selectFrom('apply_intents')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('state', '=', 'failed')
        .where('configuration', 'is not', null)
        .where('change_id', 'is', null)
        .orderBy('updated_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row ? toIntent(row) : undefined;
    },

    /** Takes over a pending intent whose lease ran out (its process died); false when another did first. */
    async takeOver(id: string, leaseMs: number): Promise<boolean> {
      const now = Date.now();
      const updated = await db
        .updateTable('apply_intents')
        .set({ lease_until: now + leaseMs, updated_at: now })
        .where('id', '=', id)
        .where('state', '=', 'pending')
        .where('lease_until', '<', now)
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1;
    },

    /** The owner is alive: its intent's lease runs on. */
    async extend(id: string, leaseMs: number): Promise<void> {
      const now = Date.now();
      await db
        .updateTable('apply_intents')
        .set({ lease_until: now + leaseMs, updated_at: now })
        .where('id', '=', id)
        .where('state', '=', 'pending')
        .execute();
    },

    /** Write-ahead: what is about to be written, as the history will record it. */
    async stage(
      id: string,
      write: { configuration: Record<string, unknown>; undoes: string | null; reason: string },
    ): Promise<void> {
      await db
        .updateTable('apply_intents')
        .set({
          configuration: JSON.stringify(write.configuration),
          undoes: write.undoes,
          reason: write.reason,
          updated_at: Date.now(),
        })
        .where('id', '=', id)
        .execute();
    },

    /** The intent ends without a history entry (skipped, failed, abandoned), or with none more to write. */
    async close(
      id: string,
      state: Exclude<ApplyIntentState, 'pending'>,
      outcome: string | null,
    ): Promise<void> {
      await db
        .updateTable('apply_intents')
        .set({ state, outcome, updated_at: Date.now() })
        .where('id', '=', id)
        .execute();
    },

    /** Forgets an intent that intended no write (the SLA guard's look at a run). */
    async discard(id: string): Promise<void> {
      await db.deleteFrom('apply_intents').where('id', '=', id).execute();
    },

    /** The project's intents, newest first. */
    async ofProject(projectId: string, limit = 50): Promise<ApplyIntent[]> {
      const rows = await db
        .selectFrom('apply_intents')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toIntent);
    },
  };
}

export type ApplyIntentRepository = ReturnType<typeof createApplyIntentRepository>;
