import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../dialect.js';

/**
 * Per project, the analyzed runs that left its learning window, folded into per-configuration totals of
 * ln(runtime) and the rebase detection's state (`learning-summary.ts`), up to the run `marker_*` names,
 * for the learning reset `learning_since` started: recommendations keep learning from a long history
 * while reading a bounded window of runs.
 */
export function migration0083(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('project_learning_summaries')
        .addColumn('project_id', 'text', (c) => c.primaryKey())
        .addColumn('learning_since', types.bigint, (c) => c.notNull())
        .addColumn('marker_created_at', types.bigint, (c) => c.notNull())
        .addColumn('marker_run_id', 'text', (c) => c.notNull())
        .addColumn('folded_runs', 'integer', (c) => c.notNull())
        .addColumn('statistics', types.json, (c) => c.notNull())
        .addColumn('updated_at', types.bigint, (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('project_learning_summaries').execute();
    },
  };
}
