import type { Kysely } from 'kysely';

/**
 * Serverless runs wait for their bill beside classic ones: `performance_target` marks a run of serverless
 * compute (null: a classic cluster, whose `cluster_id` the bill is read by) and records the mode it ran in.
 */
export function migration0170() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('databricks_run_billing').addColumn('performance_target', 'text').execute();
    },
  };
}
