import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../dialect.js';

/**
 * When a run on an applied configuration first met the project's SLA: a rollback goes to the newest
 * configuration that did (the cold start if none did).
 */
export function migration0144(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('applied_changes').addColumn('met_sla_at', types.bigint).execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('applied_changes').dropColumn('met_sla_at').execute();
    },
  };
}
