import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../dialect.js';

/** A delivery that failed for a transient reason is retried with backoff, then parked (visible). */
export function migration0072(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('notifications')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema.alterTable('notifications').addColumn('next_attempt_at', types.bigint).execute();
      await db.schema
        .createIndex('notifications_retry_due')
        .on('notifications')
        .columns(['status', 'next_attempt_at'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('notifications_retry_due').execute();
      await db.schema.alterTable('notifications').dropColumn('next_attempt_at').execute();
      await db.schema.alterTable('notifications').dropColumn('attempts').execute();
    },
  };
}
