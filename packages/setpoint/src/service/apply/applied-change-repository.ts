import { createHash } from 'node:crypto';
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
    metSlaAt: row.met_sla_at ?? null,
  };
}

/** The id of an entry recorded once per project and key (`cfg_` and 20 hex digits, like a random one). */
function onceIdOf(projectId: string, key: string): string {
  return `cfg_${createHash('sha256').update(`${projectId}\n${key}`).digest('hex').slice(0, 20)}`;
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
    /**
     * Records an entry of the history; with `intent`, in the same transaction the intent names it and, when it
     * is the intent's last write, is marked written: a write is never both recorded and still pending. With
     * `once` (for entries no intent guards: a launch the platform found), the entry is recorded once per
     * project and key, also when two processes record it at the same time; each gets the one recorded.
     */
    async record(
      input: NewAppliedChange,
      options: { intent?: { id: string; last: boolean }; once?: string } = {},
    ): Promise<AppliedChange> {
      return db.transaction().execute(async (trx) => {
        // an entry recorded once per key has an id made from it: whoever records it second gets the first's
        const onceId = options.once === undefined ? undefined : onceIdOf(input.projectId, options.once);
        if (onceId !== undefined) {
          const existing = await trx
            .selectFrom('applied_changes')
            .selectAll()
            .where('id', '=', onceId)
            .executeTakeFirst();
          if (existing) return toAppliedChange(existing);
        }
        // strictly after the project's previous entry: an undo in the same millisecond still sorts after
        const previous = await trx
          .selectFrom('applied_changes')
          .select((eb) => eb.fn.max('created_at').as('latest'))
          .where('project_id', '=', input.projectId)
          .executeTakeFirst();
        const change: AppliedChange = {
          ...input,
          id: onceId ?? newId('cfg'),
          createdAt: Math.max(Date.now(), Number(previous?.latest ?? 0) + 1),
          metSlaAt: null,
        };
        await trx
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
          .onConflict((conflict) => conflict.column('id').doNothing())
          .execute();
        if (onceId !== undefined) {
          // another process may have recorded the same entry between the look and the insert
          const recorded = await trx
            .selectFrom('applied_changes')
            .selectAll()
            .where('id', '=', onceId)
            .executeTakeFirstOrThrow();
          return toAppliedChange(recorded);
        }
        if (options.intent)
          await trx
            .updateTable('apply_intents')
            .set({
              change_id: change.id,
              updated_at: Date.now(),
              ...(options.intent.last ? { state: 'written' } : {}),
            })
            .where('id', '=', options.intent.id)
            .execute();
        return change;
      });
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

    /** A run on the entry met the project's SLA: the first time is kept. */
    async markMetSla(id: string, at: number): Promise<void> {
      await db
        .updateTable('applied_changes')
        .set({ met_sla_at: at })
        .where('id', '=', id)
        .where('met_sla_at', 'is', null)
        .execute();
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
