import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../dialect.js';

/**
 * When run retention deletes the run a recommendation was based on, the recommendation no longer names
 * it (no id that leads nowhere) and records when its run was pruned instead.
 */
export function migration0081(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('recommendations')
        .addColumn('based_on_run_pruned_at', types.bigint)
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('recommendations').dropColumn('based_on_run_pruned_at').execute();
    },
  };
}
