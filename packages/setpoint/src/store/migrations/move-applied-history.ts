import { type Kysely, sql } from 'kysely';

/** A platform's apply tables of the releases before the one history, and the columns that differ. */
export interface PlatformApplyTables {
  platform: string;
  history: string;
  /** Its column holding what was written (JSON). */
  configuration: string;
  /** Its column naming the change an undo undid, if it had one. */
  undoes: string | null;
  guard: string;
  /** Its guard's column naming the last configuration a run went well on, if it had one. */
  lastGood: string | null;
}

/**
 * Moves a platform's apply history and guard into the core's (`applied_changes`, `apply_guards`, migration
 * 0140) and drops its own tables: each platform's migration after 0140 calls it for its tables.
 */
export async function moveAppliedHistory(db: Kysely<unknown>, from: PlatformApplyTables): Promise<void> {
  const column = (name: string | null) => (name === null ? sql`NULL` : sql.ref(name));
  await sql`
    INSERT INTO applied_changes
      (id, project_id, platform, recommendation_id, kind, configuration, undoes, actor, reason, created_at)
    SELECT id, project_id, ${sql.lit(from.platform)}, recommendation_id, kind, ${sql.ref(from.configuration)},
      ${column(from.undoes)}, actor, reason, created_at
    FROM ${sql.table(from.history)}`.execute(db);
  await sql`
    INSERT INTO apply_guards (project_id, auto_apply_paused, pause_reason, last_good_change_id, updated_at)
    SELECT project_id, auto_apply_paused, pause_reason, ${column(from.lastGood)}, updated_at
    FROM ${sql.table(from.guard)}`.execute(db);
  await db.schema.dropTable(from.guard).execute();
  await db.schema.dropTable(from.history).execute();
}
