import type { Kysely } from 'kysely';
import { type DialectName, dialectTypes } from '../../../store/dialect.js';

/**
 * EMR Serverless jobs imported as projects (an application's job, named as discovery groups its runs) and the
 * job runs already collected for each, so reconciliation collects every finished run once.
 */
export function migration0180(dialect: DialectName) {
  const types = dialectTypes(dialect);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('emr_serverless_jobs')
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('application_id', 'text', (c) => c.notNull())
        .addColumn('job_key', 'text', (c) => c.notNull())
        .addColumn('created_at', types.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('emr_serverless_jobs_pk', ['workspace_id', 'application_id', 'job_key'])
        .execute();
      await db.schema
        .createTable('emr_serverless_collected_runs')
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('application_id', 'text', (c) => c.notNull())
        .addColumn('job_run_id', 'text', (c) => c.notNull())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('run_id', 'text')
        .addColumn('collected_at', types.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('emr_serverless_collected_runs_pk', [
          'project_id',
          'application_id',
          'job_run_id',
        ])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('emr_serverless_collected_runs').execute();
      await db.schema.dropTable('emr_serverless_jobs').execute();
    },
  };
}
