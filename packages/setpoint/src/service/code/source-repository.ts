import type { Insertable, Kysely } from 'kysely';
import type { Database, ProjectSourcesTable } from '../../store/database-schema.js';
import { type AuditEntry, recordAudit } from '../audit/audit-repository.js';

/** Data access for project sources; changes are written with their audit entry in one transaction. */
export function createSourceRepository(db: Kysely<Database>) {
  return {
    find(projectId: string) {
      return db
        .selectFrom('project_sources')
        .selectAll()
        .where('project_id', '=', projectId)
        .executeTakeFirst();
    },

    async save(row: Insertable<ProjectSourcesTable>, audit: AuditEntry): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const { project_id: _key, created_at: _created, created_by: _by, ...changes } = row;
        await trx
          .insertInto('project_sources')
          .values(row)
          .onConflict((conflict) => conflict.column('project_id').doUpdateSet(changes))
          .execute();
        await recordAudit(trx, audit, row.updated_at);
      });
    },

    async remove(projectId: string, audit: AuditEntry, now: number): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const removed = await trx
          .deleteFrom('project_sources')
          .where('project_id', '=', projectId)
          .executeTakeFirst();
        if (removed.numDeletedRows > 0n) await recordAudit(trx, audit, now);
        return removed.numDeletedRows > 0n;
      });
    },

    /** Sources with a stored token (key rotation re-encrypts them). */
    withTokens() {
      return db
        .selectFrom('project_sources')
        .select(['project_id', 'token_ciphertext'])
        .where('token_ciphertext', 'is not', null)
        .execute();
    },

    async replaceToken(projectId: string, ciphertext: string): Promise<void> {
      await db
        .updateTable('project_sources')
        .set({ token_ciphertext: ciphertext })
        .where('project_id', '=', projectId)
        .execute();
    },
  };
}

export type SourceRepository = ReturnType<typeof createSourceRepository>;
