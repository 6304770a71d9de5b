import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../dialect.js';

/** Admins disable users (kept for the audit trail, unable to sign in) rather than only delete them. */
export function migration0071(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('users').addColumn('disabled_at', types.bigint).execute();
      await db.schema.createIndex('sessions_by_user').on('sessions').column('user_id').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('sessions_by_user').execute();
      await db.schema.alterTable('users').dropColumn('disabled_at').execute();
    },
  };
}
