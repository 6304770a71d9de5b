import type { ProjectSettings } from '@setpoint/api-contract';
import { idParams } from '@setpoint/api-contract';
import {
  emrServerlessDiscoverQuery,
  emrServerlessDiscoverSchema,
  emrServerlessImportBody,
  emrServerlessImportSchema,
} from '@setpoint/api-contract/emr';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../../service/auth/principal.js';
import type { EmrServerlessIntegration } from '../emr-serverless-integration.js';

const bearer = [{ bearerAuth: [] }];
const tags = ['emr'];

/** Discovery and import of an EMR account's EMR Serverless jobs (`docs/api.md`, tag `emr`). */
export function emrServerlessRoutes(serverless: EmrServerlessIntegration): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/emr/accounts/:id/serverless/discover',
      {
        schema: {
          tags,
          summary:
            "EMR Serverless applications of the account's region and their job runs, grouped into jobs",
          security: bearer,
          params: idParams,
          querystring: emrServerlessDiscoverQuery,
          response: { 200: emrServerlessDiscoverSchema },
        },
      },
      async (request) => {
        const found = await serverless.discover(request.params.id, {
          sinceDays: request.query.since_days,
          applicationId: request.query.application_id,
        });
        return {
          ungrouped: found.ungrouped,
          applications: found.applications.map(({ application, jobs }) => ({
            id: application.id,
            name: application.name ?? null,
            release_label: application.releaseLabel,
            architecture: application.architecture,
            state: application.state,
            jobs: jobs.map((job) => ({
              key: job.key,
              recurring: job.recurring,
              runs: job.runs.map((run) => ({
                job_run_id: run.id,
                name: run.name ?? null,
                state: run.state,
                created_at: run.createdAt,
              })),
              project_id: job.projectId,
            })),
          })),
        };
      },
    );

    app.post(
      '/api/v1/emr/accounts/:id/serverless/import',
      {
        schema: {
          tags,
          summary:
            'Import EMR Serverless jobs: one monitored project each (or one job into a project of the account), their finished runs queued for collection',
          security: bearer,
          params: idParams,
          body: emrServerlessImportBody,
          response: { 200: emrServerlessImportSchema },
        },
      },
      async (request) => {
        const result = await serverless.importJobs(
          request.params.id,
          {
            applicationId: request.body.application_id,
            keys: request.body.jobs,
            sinceDays: request.body.since_days,
            projectId: request.body.project_id,
            // project creation validates the settings against the full schema
            settings: request.body.settings as Partial<ProjectSettings> | undefined,
            collectHistory: request.body.collect_history,
          },
          principalOf(request).actor,
        );
        return {
          projects: result.imported.map((entry) => ({
            id: entry.projectId,
            application_id: entry.applicationId,
            job: entry.key,
            created: entry.created,
            queued_runs: entry.queuedRuns,
          })),
          missing: result.missing,
        };
      },
    );
  };
}
