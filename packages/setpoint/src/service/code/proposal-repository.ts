import type { Insertable, Kysely, Updateable } from 'kysely';
import type { CodeProposalsTable, Database } from '../../store/database-schema.js';
import { type AuditEntry, recordAudit } from '../audit/audit-repository.js';

/** Data access for code proposals. */
export function createProposalRepository(db: Kysely<Database>) {
  return {
    list(projectId: string) {
      return db
        .selectFrom('code_proposals')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
    },

    find(projectId: string, id: string) {
      return db
        .selectFrom('code_proposals')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** Proposals still waiting for their merge or their deploy, oldest first. */
    pending(projectId?: string) {
      let query = db.selectFrom('code_proposals').selectAll().where('state', 'in', ['open', 'merged']);
      if (projectId) query = query.where('project_id', '=', projectId);
      return query.orderBy('created_at', 'asc').execute();
    },

    async insert(row: Insertable<CodeProposalsTable>, supersede: string[], audit: AuditEntry): Promise<void> {
      await db.transaction().execute(async (trx) => {
        if (supersede.length > 0)
          await trx
            .updateTable('code_proposals')
            .set({ state: 'superseded', updated_at: row.updated_at })
            .where('id', 'in', supersede)
            .execute();
        await trx.insertInto('code_proposals').values(row).execute();
        await recordAudit(trx, audit, row.created_at);
      });
    },

    async update(id: string, changes: Updateable<CodeProposalsTable>, audit?: AuditEntry): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('code_proposals').set(changes).where('id', '=', id).execute();
        if (audit) await recordAudit(trx, audit, changes.updated_at ?? Date.now());
      });
    },
  };
}

export type ProposalRepository = ReturnType<typeof createProposalRepository>;
