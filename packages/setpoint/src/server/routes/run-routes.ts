import { rm } from 'node:fs/promises';
import type {} from '@fastify/multipart';
import {
  idParams,
  pageQuery,
  runDetailSchema,
  runListSchema,
  runParams,
  runSchema,
  runUriBody,
} from '@setpoint/api-contract';
import { ValidationError } from '@setpoint/foundation/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Metrics } from '../../composition/metrics.js';
import type { ProjectClusterReportParser } from '../../platform-api/platform.js';
import type { RunService } from '../../service/runs/run-service.js';
import { presentRun, presentRunDetail } from './presenters.js';
import { maxClusterReportBytes, receiveUpload } from './run-upload.js';

const bearer = [{ bearerAuth: [] }];

export interface RunRouteOptions {
  parseClusterReport: ProjectClusterReportParser;
  scratchDir: string;
  maxUploadBytes: number;
  maxUploadFiles: number;
  metrics: Pick<Metrics, 'ingestedBytes'>;
}

export function runRoutes(runs: RunService, options: RunRouteOptions): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api/v1/projects/:id/runs',
      {
        // a JSON submission carries at most a cluster report besides its URI (an event log goes as multipart)
        bodyLimit: maxClusterReportBytes + 64 * 1024,
        schema: {
          tags: ['runs'],
          summary:
            'Submit a run: multipart (eventlog parts or a zip, optional cluster_report) or JSON {eventlog_uri}',
          description:
            'multipart/form-data: one or more `eventlog` file parts (or one zip), optional `cluster_report` (JSON part or field), ' +
            'optional `external_run_id` and `status` fields. application/json: `{eventlog_uri: "s3://…" | "https://…", external_run_id?, cluster_report?, status?}`. ' +
            '202 when the run is new, 200 when (project, external_run_id) already exists.',
          security: bearer,
          params: idParams,
          response: { 200: runSchema, 202: runSchema },
        },
      },
      async (request, reply) => {
        const projectId = request.params.id;
        if (request.isMultipart()) {
          const upload = await receiveUpload(request, options.scratchDir, {
            maxBytes: options.maxUploadBytes,
            maxFiles: options.maxUploadFiles,
          });
          try {
            const { run, created } = await runs.createFromUpload({
              projectId,
              externalRunId: upload.externalRunId,
              clusterReport: await options.parseClusterReport(projectId, upload.clusterReport),
              status: upload.status,
              files: upload.files,
            });
            if (created)
              options.metrics.ingestedBytes.inc(upload.files.reduce((sum, file) => sum + file.bytes, 0));
            return reply.status(created ? 202 : 200).send(presentRun(run));
          } finally {
            await rm(upload.directory, { recursive: true, force: true });
          }
        }
        const parsed = runUriBody.safeParse(request.body);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw new ValidationError(
            'RUN_BODY_INVALID',
            `invalid run submission: ${issue ? `${issue.path.join('.')} ${issue.message}` : 'expected multipart or JSON'}`,
          );
        }
        const body = parsed.data;
        const { run, created } = await runs.createFromUri({
          projectId,
          eventlogUri: body.eventlog_uri,
          externalRunId: body.external_run_id ?? `uri:${body.eventlog_uri}`,
          clusterReport: await options.parseClusterReport(projectId, body.cluster_report ?? null),
          status: body.status ?? null,
        });
        return reply.status(created ? 202 : 200).send(presentRun(run));
      },
    );

    app.get(
      '/api/v1/projects/:id/runs',
      {
        schema: {
          tags: ['runs'],
          summary: 'List runs, newest first',
          security: bearer,
          params: idParams,
          querystring: pageQuery,
          response: { 200: runListSchema },
        },
      },
      async (request) => {
        const { items, total } = await runs.list(request.params.id, request.query);
        return {
          items: items.map(presentRun),
          total,
          limit: request.query.limit,
          offset: request.query.offset,
        };
      },
    );

    app.get(
      '/api/v1/projects/:id/runs/:runId',
      {
        schema: {
          tags: ['runs'],
          summary: 'Get a run with its profile summary and cost',
          security: bearer,
          params: runParams,
          response: { 200: runDetailSchema },
        },
      },
      async (request) => presentRunDetail(await runs.get(request.params.id, request.params.runId)),
    );
  };
}
