import type { Kysely, Selectable } from 'kysely';
import type { AppliedChangesTable, Database } from '../../store/database-schema.js';
import { newId } from '../../store/ids.js';
import type {
  AppliedChange,
  AppliedChangeKind,
  ApplyGuard,
  NewAppliedChange,
} from './applied-change-records.js';

function toAppliedChange(row: Selectable<AppliedChangesTable>): AppliedChange {
  return {
    id: row.id,
    projectId: row.project_id,
    platform: row.platform,
    recommendationId: row.recommendation_id,
    kind: row.kind as AppliedChangeKind,
    configuration: JSON.parse(row.configuration) as Record<string, unknown>,
    undoes: row.undoes,
    actor: row.actor,
    reason: row.reason,
    createdAt: row.created_at,
  };
}

/** Data access for the apply history and the per-project guard, the same for every platform. */
export function createAppliedChangeRepository(db: Kysely<Database>) {
  async function guard(projectId: string): Promise<ApplyGuard> {
    const row = await db
      .selectFrom('apply_guards')
      .selectAll()
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return {
      paused: Boolean(row?.auto_apply_paused),
      pauseReason: row?.pause_reason ?? null,
      lastGoodChangeId: row?.last_good_change_id ?? null,
    };
  }

  return {
    async record(input: NewAppliedChange): Promise<AppliedChange> {
      // strictly after the project's previous entry: an undo in the same millisecond still sorts after
      const previous = await db
        .selectFrom('applied_changes')
        .select((eb) => eb.fn.max('created_at').as('latest'))
        .where('project_id', '=', input.projectId)
        .executeTakeFirst();
      const change: AppliedChange = {
        ...input,
        id: newId('cfg'),
        createdAt: Math.max(Date.now(), Number(previous?.latest ?? 0) + 1),
      };
      await db
        .insertInto('applied_changes')
        .values({
          id: change.id,
          project_id: change.projectId,
          platform: change.platform,
          recommendation_id: change.recommendationId,
          kind: change.kind,
          configuration: JSON.stringify(change.configuration),
          undoes: change.undoes,
          actor: change.actor,
          reason: change.reason,
          created_at: change.createdAt,
        })
        .execute();
      return change;
    },

    /** The project's history, oldest first. */
    async history(projectId: string): Promise<AppliedChange[]> {
      const rows = await db
        .selectFrom('applied_changes')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute();
      return rows.map(toAppliedChange);
    },

    guard,

    async saveGuard(projectId: string, values: Partial<ApplyGuard>): Promise<void> {
      const current = await guard(projectId);
      const row = {
        auto_apply_paused: (values.paused ?? current.paused) ? 1 : 0,
        pause_reason: values.pauseReason === undefined ? current.pauseReason : values.pauseReason,
        last_good_change_id:
          values.lastGoodChangeId === undefined ? current.lastGoodChangeId : values.lastGoodChangeId,
        updated_at: Date.now(),
      };
      await db
        .insertInto('apply_guards')
        .values({ project_id: projectId, ...row })
        .onConflict((conflict) => conflict.column('project_id').doUpdateSet(row))
        .execute();
    },
  };
}

export type AppliedChangeRepository = ReturnType<typeof createAppliedChangeRepository>;
