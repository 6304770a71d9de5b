import { NotFoundError } from '@setpoint/foundation/errors';
import type { Kysely, Selectable } from 'kysely';
import type { Database, WorkspacesTable } from '../../store/database-schema.js';
import { type AuditEntry, recordAudit } from '../audit/audit-repository.js';

export type WorkspaceRow = Selectable<WorkspacesTable>;

/** The columns a create or update writes; secrets arrive already sealed. */
export type WorkspaceColumns = Partial<Omit<WorkspaceRow, 'id' | 'created_at' | 'updated_at'>>;

/** Data access for workspaces; changes are written with their audit entry in one transaction. */
export function createWorkspaceRepository(db: Kysely<Database>) {
  async function find(id: string): Promise<WorkspaceRow | undefined> {
    return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
  }

  return {
    find,

    async get(id: string): Promise<WorkspaceRow> {
      const found = await find(id);
      if (!found) throw new NotFoundError('WORKSPACE_NOT_FOUND', `workspace ${id} does not exist`);
      return found;
    },

    async assertExists(id: string): Promise<void> {
      const found = await db.selectFrom('workspaces').select('id').where('id', '=', id).executeTakeFirst();
      if (!found) throw new NotFoundError('WORKSPACE_NOT_FOUND', `workspace ${id} does not exist`);
    },

    list(): Promise<WorkspaceRow[]> {
      return db.selectFrom('workspaces').selectAll().orderBy('created_at', 'asc').execute();
    },

    async insert(row: WorkspaceRow, audit: AuditEntry): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('workspaces').values(row).execute();
        await recordAudit(trx, audit, row.created_at);
      });
    },

    async update(id: string, columns: WorkspaceColumns, now: number, audit: AuditEntry): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('workspaces')
          .set({ ...columns, updated_at: now })
          .where('id', '=', id)
          .execute();
        await recordAudit(trx, audit, now);
      });
    },

    /** Deletes the workspace; its projects stay, unlinked. */
    async remove(id: string, audit: AuditEntry): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('projects')
          .set({ workspace_id: null })
          .where('workspace_id', '=', id)
          .execute();
        await trx.deleteFrom('workspaces').where('id', '=', id).execute();
        await recordAudit(trx, audit);
      });
    },

    /** Re-seals one secret column (key rotation); no audit entry, nothing about it changes. */
    async rewriteSecret(
      id: string,
      column: 'credentials_ciphertext' | 'webhook_credentials_ciphertext',
      envelope: string,
    ): Promise<void> {
      await db
        .updateTable('workspaces')
        .set({ [column]: envelope })
        .where('id', '=', id)
        .execute();
    },
  };
}

export type WorkspaceRepository = ReturnType<typeof createWorkspaceRepository>;
