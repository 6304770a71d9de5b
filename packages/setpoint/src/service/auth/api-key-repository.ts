import type { Kysely, Selectable } from 'kysely';
import type { ApiKeysTable, Database } from '../../store/database-schema.js';
import { type AuditEntry, recordAudit } from '../audit/audit-repository.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

/** Data access for API keys (secrets are stored as keyed hashes only). */
export function createApiKeyRepository(db: Kysely<Database>) {
  return {
    async insert(row: ApiKeyRow, audit: AuditEntry): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('api_keys').values(row).execute();
        await recordAudit(trx, audit, row.created_at);
      });
    },

    list(): Promise<ApiKeyRow[]> {
      return db.selectFrom('api_keys').selectAll().orderBy('created_at', 'asc').execute();
    },

    find(id: string): Promise<ApiKeyRow | undefined> {
      return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** False when there is no such key. */
    async revoke(id: string, now: number, audit: AuditEntry): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const result = await trx
          .updateTable('api_keys')
          .set({ revoked_at: now })
          .where('id', '=', id)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) return false;
        await recordAudit(trx, audit, now);
        return true;
      });
    },

    async touch(id: string, now: number): Promise<void> {
      await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
    },
  };
}

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;
