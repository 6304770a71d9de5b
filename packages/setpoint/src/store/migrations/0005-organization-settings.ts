import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../dialect.js';

/** Organization-wide defaults (discounts, defaults for new projects): one JSON document per organization. */
export function migration0005(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('organization_settings')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('settings', types.json, (c) => c.notNull())
        .addColumn('updated_at', types.bigint, (c) => c.notNull())
        .addColumn('updated_by', 'text', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('organization_settings').execute();
    },
  };
}
