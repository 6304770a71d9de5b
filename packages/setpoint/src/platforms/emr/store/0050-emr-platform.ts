import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../../../store/dialect.js';

/**
 * State of the EMR platform: each account's grouping rule (its connection and secrets live sealed in
 * its workspace row), the workloads imported as projects, the steps already collected, every change
 * Setpoint made to a long-running cluster (to roll back and to notice edits by others), and per-project
 * guardrail state.
 */
export function migration0050(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('emr_accounts')
        .addColumn('workspace_id', 'text', (c) => c.primaryKey())
        .addColumn('grouping_rule', types.json, (c) => c.notNull())
        .addColumn('last_reconciled_at', types.bigint)
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('emr_workloads')
        .addColumn('project_id', 'text', (c) => c.primaryKey())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('workload_key', 'text', (c) => c.notNull())
        .addColumn('grouping_rule', types.json, (c) => c.notNull())
        .addColumn('cluster_id', 'text')
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('emr_workloads_account_key')
        .on('emr_workloads')
        .columns(['workspace_id', 'workload_key'])
        .unique()
        .execute();
      await db.schema
        .createTable('emr_collected_steps')
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('cluster_id', 'text', (c) => c.notNull())
        .addColumn('step_id', 'text', (c) => c.notNull())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('run_id', 'text')
        .addColumn('collected_at', types.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('emr_collected_steps_pk', ['project_id', 'cluster_id', 'step_id'])
        .execute();
      await db.schema
        .createTable('emr_applied_configs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('recommendation_id', 'text')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('cluster_id', 'text', (c) => c.notNull())
        .addColumn('plan', types.json, (c) => c.notNull())
        .addColumn('undoes', 'text')
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('emr_applied_configs_project')
        .on('emr_applied_configs')
        .columns(['project_id', 'created_at'])
        .execute();
      await db.schema
        .createTable('emr_project_guard')
        .addColumn('project_id', 'text', (c) => c.primaryKey())
        .addColumn('auto_apply_paused', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('pause_reason', 'text')
        .addColumn('updated_at', types.bigint, (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const table of [
        'emr_project_guard',
        'emr_applied_configs',
        'emr_collected_steps',
        'emr_workloads',
        'emr_accounts',
      ]) {
        await db.schema.dropTable(table).execute();
      }
    },
  };
}
