import type { Kysely } from 'kysely';
import type { Database } from '../../../store/database-schema.js';
import type { EmrTables } from './emr-tables.js';

/** An EMR Serverless application's job imported as a project. */
export interface EmrServerlessJob {
  projectId: string;
  workspaceId: string;
  applicationId: string;
  key: string;
  createdAt: number;
}

/** Data access for the EMR Serverless jobs imported as projects and the job runs collected for them. */
export function createEmrServerlessRepository(database: Kysely<Database>) {
  const db = database.withTables<EmrTables>();
  return {
    async jobs(filter: { workspaceId?: string; projectId?: string } = {}): Promise<EmrServerlessJob[]> {
      let query = db
        .selectFrom('emr_serverless_jobs')
        .selectAll()
        .orderBy('created_at')
        .orderBy('project_id');
      if (filter.workspaceId) query = query.where('workspace_id', '=', filter.workspaceId);
      if (filter.projectId) query = query.where('project_id', '=', filter.projectId);
      return (await query.execute()).map((row) => ({
        projectId: row.project_id,
        workspaceId: row.workspace_id,
        applicationId: row.application_id,
        key: row.job_key,
        createdAt: row.created_at,
      }));
    },
    async saveJob(job: Omit<EmrServerlessJob, 'createdAt'>): Promise<void> {
      await db
        .insertInto('emr_serverless_jobs')
        .values({
          project_id: job.projectId,
          workspace_id: job.workspaceId,
          application_id: job.applicationId,
          job_key: job.key,
          created_at: Date.now(),
        })
        .execute();
    },
    async collected(projectId: string, applicationId: string, jobRunId: string): Promise<boolean> {
      const row = await db
        .selectFrom('emr_serverless_collected_runs')
        .select('job_run_id')
        .where('project_id', '=', projectId)
        .where('application_id', '=', applicationId)
        .where('job_run_id', '=', jobRunId)
        .executeTakeFirst();
      return row !== undefined;
    },
    /** The job run each of a project's collected runs came from, by the run's id. */
    async jobRunsOf(projectId: string): Promise<Map<string, { applicationId: string; jobRunId: string }>> {
      const rows = await db
        .selectFrom('emr_serverless_collected_runs')
        .select(['run_id', 'application_id', 'job_run_id'])
        .where('project_id', '=', projectId)
        .where('run_id', 'is not', null)
        .execute();
      return new Map(
        rows.map((row) => [
          row.run_id as string,
          { applicationId: row.application_id, jobRunId: row.job_run_id },
        ]),
      );
    },
    async markCollected(input: {
      projectId: string;
      workspaceId: string;
      applicationId: string;
      jobRunId: string;
      runId: string | null;
    }): Promise<void> {
      await db
        .insertInto('emr_serverless_collected_runs')
        .values({
          project_id: input.projectId,
          workspace_id: input.workspaceId,
          application_id: input.applicationId,
          job_run_id: input.jobRunId,
          run_id: input.runId,
          collected_at: Date.now(),
        })
        .onConflict((conflict) =>
          conflict.columns(['project_id', 'application_id', 'job_run_id']).doNothing(),
        )
        .execute();
    },
    /** Forgets what was imported from an account (its projects stay, with their runs). */
    async removeAccount(workspaceId: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx
          .deleteFrom('emr_serverless_collected_runs')
          .where('workspace_id', '=', workspaceId)
          .execute();
        await trx.deleteFrom('emr_serverless_jobs').where('workspace_id', '=', workspaceId).execute();
      });
    },
  };
}

export type EmrServerlessRepository = ReturnType<typeof createEmrServerlessRepository>;
