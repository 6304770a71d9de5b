import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../../../store/dialect.js';

/**
 * When each estimated run's cluster terminated: Databricks bills per hour and publishes each hour on its
 * own, so a bill is whole only once its records reach the hour the cluster ended in.
 */
export function migration0101(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('databricks_run_billing')
        .addColumn('cluster_terminated_at', types.bigint)
        .execute();
    },
  };
}
