import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../dialect.js';

/**
 * The one history of what Setpoint wrote into a project's cluster, on every platform (each platform's
 * configuration as its own JSON), and the one per-project guard (auto-apply paused, why, the last
 * configuration a run went well on). The platforms' migrations that follow move their rows here.
 */
export function migration0140(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('applied_changes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('recommendation_id', 'text')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('configuration', types.json, (c) => c.notNull())
        .addColumn('undoes', 'text')
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('applied_changes_project')
        .on('applied_changes')
        .columns(['project_id', 'created_at'])
        .execute();
      await db.schema
        .createTable('apply_guards')
        .addColumn('project_id', 'text', (c) => c.primaryKey())
        .addColumn('auto_apply_paused', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('pause_reason', 'text')
        .addColumn('last_good_change_id', 'text')
        .addColumn('updated_at', types.bigint, (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('apply_guards').execute();
      await db.schema.dropTable('applied_changes').execute();
    },
  };
}
