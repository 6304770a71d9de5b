import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../dialect.js';

/** Dashboard sign-in: local users (slow password hashes) and their sessions (token hashes only). */
export function migration0004(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('username', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('sessions')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('expires_at', types.bigint, (c) => c.notNull())
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('sessions').execute();
      await db.schema.dropTable('users').execute();
    },
  };
}
