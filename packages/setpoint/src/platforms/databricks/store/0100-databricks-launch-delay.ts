import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../../../store/dialect.js';

/**
 * The launch delay learned from reconciled bills: each run's estimate keeps its nodes' launch windows and
 * the delay it placed them with, and each workspace keeps the delay its bills taught (or none yet).
 */
export function migration0100(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // one column per statement: SQLite adds a single column per ALTER TABLE
      await db.schema.alterTable('databricks_run_billing').addColumn('launch_windows', types.json).execute();
      await db.schema
        .alterTable('databricks_run_billing')
        .addColumn('launch_delay_ms', 'double precision')
        .execute();
      await db.schema
        .createTable('databricks_launch_delays')
        .addColumn('workspace_id', 'text', (c) => c.primaryKey())
        .addColumn('launch_delay_ms', 'double precision')
        .addColumn('runs', 'integer', (c) => c.notNull())
        .addColumn('default_error', 'double precision')
        .addColumn('learned_error', 'double precision')
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('updated_at', types.bigint, (c) => c.notNull())
        .execute();
    },
  };
}
