import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../dialect.js';

/** Destinations can be edited: when and by whom they last changed (the audit trail holds each change). */
export function migration0080(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('alert_destinations').addColumn('updated_at', types.bigint).execute();
      await db.schema.alterTable('alert_destinations').addColumn('updated_by', 'text').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('alert_destinations').dropColumn('updated_by').execute();
      await db.schema.alterTable('alert_destinations').dropColumn('updated_at').execute();
    },
  };
}
