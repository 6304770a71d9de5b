import type { Kysely } from 'kysely';
import type { Database } from '../../store/database-schema.js';
import { type AuditEntry, recordAudit } from '../audit/audit-repository.js';

/** One organization per Setpoint server: its settings row has this id. */
const rowId = 'organization';

export interface StoredOrganizationSettings {
  settings: unknown;
  updatedAt: number;
  updatedBy: string;
}

/** Reads and writes the organization's settings document (migration 0005). */
export function createOrganizationSettingsRepository(db: Kysely<Database>) {
  return {
    async read(): Promise<StoredOrganizationSettings | undefined> {
      const row = await db
        .selectFrom('organization_settings')
        .selectAll()
        .where('id', '=', rowId)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        settings: JSON.parse(row.settings) as unknown,
        updatedAt: Number(row.updated_at),
        updatedBy: row.updated_by,
      };
    },

    /** Writes the whole document and its audit entry in one transaction. */
    async write(settings: unknown, actor: string, now: number, audit: AuditEntry): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const values = { settings: JSON.stringify(settings), updated_at: now, updated_by: actor };
        await trx
          .insertInto('organization_settings')
          .values({ id: rowId, ...values })
          .onConflict((conflict) => conflict.column('id').doUpdateSet(values))
          .execute();
        await recordAudit(trx, audit, now);
      });
    },
  };
}

export type OrganizationSettingsRepository = ReturnType<typeof createOrganizationSettingsRepository>;
