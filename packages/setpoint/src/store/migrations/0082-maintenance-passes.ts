import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../dialect.js';

/**
 * One-time passes over old rows that have finished (such as adding the overhead to runs costed before
 * the split): a finished pass is never started again, so no start-up scans a table for rows it already
 * dealt with.
 */
export function migration0082(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('maintenance_passes')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('finished_at', types.bigint, (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('maintenance_passes').execute();
    },
  };
}
