import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../dialect.js';

/** Workspaces, project settings, runs, recommendations, API keys and the SQL job queue. */
export function migration0002(dialect: DialectName) {
  const types = dialectTypes(dialect);
  const serial = (column: import('kysely').ColumnDefinitionBuilder) =>
    dialect === 'sqlite' ? column.primaryKey().autoIncrement() : column.primaryKey();
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('workspaces')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('cloud', 'text', (c) => c.notNull())
        .addColumn('region', 'text')
        .addColumn('host', 'text')
        .addColumn('plan_type', 'text')
        .addColumn('compute_type', 'text')
        .addColumn('credentials_ciphertext', 'text')
        .addColumn('webhook_credentials_ciphertext', 'text')
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .addColumn('updated_at', types.bigint, (c) => c.notNull())
        .execute();

      for (const [name, type] of [
        ['workspace_id', 'text'],
        ['job_id', 'text'],
        ['cluster_key', 'text'],
        ['app_id', 'text'],
      ] as const) {
        await db.schema.alterTable('projects').addColumn(name, type).execute();
      }
      await db.schema
        .alterTable('projects')
        .addColumn('settings', types.json, (c) => c.notNull().defaultTo('{}'))
        .execute();
      await db.schema
        .alterTable('projects')
        .addColumn('phase', 'text', (c) => c.notNull().defaultTo('PENDING_SETUP'))
        .execute();
      await db.schema
        .createIndex('projects_created_at')
        .on('projects')
        .columns(['created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('projects_updated_at')
        .on('projects')
        .columns(['updated_at', 'id'])
        .execute();
      await db.schema.createIndex('projects_name').on('projects').columns(['name', 'id']).execute();
      await db.schema
        .createIndex('projects_workspace')
        .on('projects')
        .columns(['workspace_id', 'job_id'])
        .execute();

      await db.schema
        .createTable('runs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('external_run_id', 'text', (c) => c.notNull())
        .addColumn('pipeline_state', 'text', (c) => c.notNull())
        .addColumn('status', 'text')
        .addColumn('started_at', types.bigint)
        .addColumn('ended_at', types.bigint)
        .addColumn('cluster_config', types.json)
        .addColumn('cluster_timeline', types.json)
        .addColumn('cluster_report', types.json)
        .addColumn('eventlog_uri', 'text')
        .addColumn('eventlog_blob_key', 'text')
        .addColumn('eventlog_bytes', types.bigint)
        .addColumn('profile', types.json)
        .addColumn('cost', types.json)
        .addColumn('input_bytes', types.bigint)
        .addColumn('recommendation_id', 'text')
        .addColumn('error', 'text')
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .addColumn('updated_at', types.bigint, (c) => c.notNull())
        .addUniqueConstraint('runs_project_external_run', ['project_id', 'external_run_id'])
        .execute();
      await db.schema
        .createIndex('runs_project_created')
        .on('runs')
        .columns(['project_id', 'created_at'])
        .execute();

      await db.schema
        .createTable('recommendations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('idempotency_key', 'text', (c) => c.unique())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('phase', 'text')
        .addColumn('configuration', types.json)
        .addColumn('prediction', types.json)
        .addColumn('explanation', 'text')
        .addColumn('based_on_run_id', 'text')
        .addColumn('error', 'text')
        .addColumn('requested_by', 'text', (c) => c.notNull())
        .addColumn('apply_requested_at', types.bigint)
        .addColumn('apply_requested_by', 'text')
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .addColumn('updated_at', types.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('recommendations_project_created')
        .on('recommendations')
        .columns(['project_id', 'created_at'])
        .execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('secret_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .addColumn('last_used_at', types.bigint)
        .addColumn('revoked_at', types.bigint)
        .execute();

      await db.schema
        .createTable('queue_jobs')
        .addColumn('id', types.serialPrimaryKey, serial)
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('payload', types.json, (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('run_at', types.bigint, (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('max_attempts', 'integer', (c) => c.notNull())
        .addColumn('locked_by', 'text')
        .addColumn('locked_until', types.bigint)
        .addColumn('last_error', 'text')
        .addColumn('idempotency_key', 'text', (c) => c.unique())
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .addColumn('finished_at', types.bigint)
        .execute();
      await db.schema.createIndex('queue_jobs_claim').on('queue_jobs').columns(['state', 'run_at']).execute();

      await db.schema
        .createTable('parked_jobs')
        .addColumn('id', types.serialPrimaryKey, serial)
        .addColumn('queue', 'text', (c) => c.notNull())
        .addColumn('job_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('payload', types.json, (c) => c.notNull())
        .addColumn('error', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const table of [
        'parked_jobs',
        'queue_jobs',
        'api_keys',
        'recommendations',
        'runs',
        'workspaces',
      ]) {
        await db.schema.dropTable(table).execute();
      }
    },
  };
}
