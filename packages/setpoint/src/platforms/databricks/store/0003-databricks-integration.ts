import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../../../store/dialect.js';

/**
 * State of the Databricks integration: what onboarding changed (to undo it), every cluster
 * configuration Setpoint wrote (to roll back and to detect edits by others), per-project guardrail
 * state, and webhook deliveries already seen.
 */
export function migration0003(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('databricks_workspace_links')
        .addColumn('workspace_id', 'text', (c) => c.primaryKey())
        .addColumn('destination_id', 'text')
        .addColumn('log_destination', 'text')
        .addColumn('updated_at', types.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('databricks_onboarded_jobs')
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('job_id', 'text', (c) => c.notNull())
        .addColumn('restore', types.json, (c) => c.notNull())
        .addColumn('last_seen_run_start', types.bigint)
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('databricks_onboarded_jobs_pk', ['workspace_id', 'job_id'])
        .execute();
      await db.schema
        .createTable('databricks_applied_configs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('recommendation_id', 'text')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('cluster_spec', types.json, (c) => c.notNull())
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('databricks_applied_configs_project')
        .on('databricks_applied_configs')
        .columns(['project_id', 'created_at'])
        .execute();
      await db.schema
        .createTable('databricks_project_guard')
        .addColumn('project_id', 'text', (c) => c.primaryKey())
        .addColumn('auto_apply_paused', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('pause_reason', 'text')
        .addColumn('last_good_config_id', 'text')
        .addColumn('updated_at', types.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('databricks_webhook_events')
        .addColumn('event_key', 'text', (c) => c.primaryKey())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('received_at', types.bigint, (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const table of [
        'databricks_webhook_events',
        'databricks_project_guard',
        'databricks_applied_configs',
        'databricks_onboarded_jobs',
        'databricks_workspace_links',
      ]) {
        await db.schema.dropTable(table).execute();
      }
    },
  };
}
