import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../../../store/dialect.js';

/**
 * System tables: the SQL warehouse a workspace reads them through, and each run's DBU cost as estimated
 * from list prices beside what `system.billing.usage` billed for it (filled hours later, restated when
 * Databricks restates).
 */
export function migration0020(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('databricks_workspace_links')
        .addColumn('sql_warehouse_id', 'text')
        .execute();
      await db.schema
        .createTable('databricks_run_billing')
        .addColumn('run_id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('databricks_run_id', 'text', (c) => c.notNull())
        .addColumn('cluster_id', 'text', (c) => c.notNull())
        .addColumn('estimated_dbus', 'double precision', (c) => c.notNull())
        .addColumn('estimated_dbu_usd', 'double precision', (c) => c.notNull())
        .addColumn('billed_dbus', 'double precision')
        .addColumn('billed_dbu_usd', 'double precision')
        .addColumn('billing_rows', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('restated', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('billed_at', types.bigint)
        .addColumn('next_check_at', types.bigint)
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .addColumn('updated_at', types.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('databricks_run_billing_pending')
        .on('databricks_run_billing')
        .columns(['workspace_id', 'next_check_at'])
        .execute();
      await db.schema
        .createIndex('databricks_run_billing_project')
        .on('databricks_run_billing')
        .columns(['project_id'])
        .execute();
    },
  };
}
