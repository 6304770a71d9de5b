import type { Kysely } from 'kysely';
import type { Database } from '../store/database-schema.js';

export type OrganizationSettingsTable = {
  id: string;
  /** JSON `OrganizationSettings`. */
  settings: string;
  updated_at: number;
  updated_by: string;
};

// Type aliases, not interfaces: Kysely's withTables needs an indexable record.
export type OrganizationTables = {
  organization_settings: OrganizationSettingsTable;
};

/** One organization per Setpoint server: its settings row has this id. */
const rowId = 'organization';

export interface StoredOrganizationSettings {
  settings: unknown;
  updatedAt: number;
  updatedBy: string;
}

/** Reads and writes the organization's settings document (migration 0005). */
export function createOrganizationSettingsStore(database: Kysely<Database>) {
  const db = database.withTables<OrganizationTables>();
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

    /** Writes the whole document and, in the same transaction, what `onWrite` records (the audit entry). */
    async write(
      settings: unknown,
      actor: string,
      now: number,
      onWrite: (trx: Kysely<Database>) => Promise<void>,
    ): Promise<void> {
      await database.transaction().execute(async (trx) => {
        const values = { settings: JSON.stringify(settings), updated_at: now, updated_by: actor };
        await trx
          .withTables<OrganizationTables>()
          .insertInto('organization_settings')
          .values({ id: rowId, ...values })
          .onConflict((conflict) => conflict.column('id').doUpdateSet(values))
          .execute();
        await onWrite(trx);
      });
    },
  };
}

export type OrganizationSettingsStore = ReturnType<typeof createOrganizationSettingsStore>;
