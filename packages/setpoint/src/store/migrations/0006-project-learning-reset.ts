import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../dialect.js';

/** `projects reset`: runs before `learning_reset_at` stay as history but no longer teach the optimizer. */
export function migration0006(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('projects').addColumn('learning_reset_at', types.bigint).execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('projects').dropColumn('learning_reset_at').execute();
    },
  };
}
