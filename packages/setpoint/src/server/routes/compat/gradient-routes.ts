import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import type {} from '@fastify/multipart';
import * as gradient from '@setpoint/api-contract/gradient';
import { errorKinds, isAppError, NotFoundError, ValidationError } from '@setpoint/foundation/errors';
import type { FastifyError } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ProjectClusterReportParser } from '../../../platform-api/platform.js';
import { projectTagKey } from '../../../platforms/databricks/jobs/onboarding.js';
import type { ApiKeyService } from '../../../service/auth/api-key-service.js';
import { principalOf } from '../../../service/auth/principal.js';
import type { Project, ProjectService } from '../../../service/projects/project-service.js';
import type {
  RecommendationRecord,
  RecommendationService,
} from '../../../service/recommendations/recommendation-service.js';
import type { Run, RunService, UploadedFile } from '../../../service/runs/run-service.js';
import {
  asUploadError,
  fieldTooLarge,
  maxClusterReportBytes,
  parseJsonText,
  UploadBudget,
} from '../run-upload.js';
import {
  gradientTime,
  presentGradientProject,
  presentGradientRecommendation,
  presentSubmission,
  projectInputFromGradient,
} from './gradient-shapes.js';

const {
  pageQuery,
  projectCreateBody,
  projectListQuery,
  projectParams,
  projectUpdateBody,
  recommendationParams,
  submissionBody,
  submissionParams,
  tokenBody,
} = gradient;

export interface GradientCompatDependencies {
  parseClusterReport: ProjectClusterReportParser;
  apiKeys: Pick<ApiKeyService, 'exchange' | 'authenticate'>;
  projects: ProjectService;
  runs: RunService;
  recommendations: RecommendationService;
  scratchDir: string;
  maxUploadBytes: number;
  maxUploadFiles: number;
}

/** Where `upload_details.url` points: an S3-presigned-POST look-alike that takes the event log. */
export const gradientUploadPath = '/v1/uploads/submissions';
const fileNamePlaceholder = '$' + '{filename}';

/**
 * Sync Computing's Gradient API (`/v1/…`, `{"result": …}` envelope, `{"error": {code, message, detail}}`)
 * mapped onto Setpoint's own services, so `syncsparkpy` users can point `SYNC_API_URL` at Setpoint.
 */
export function gradientCompatRoutes(deps: GradientCompatDependencies): FastifyPluginAsyncZod {
  const { projects, runs, recommendations } = deps;

  async function findSubmission(projectId: string, submissionId: string): Promise<Run> {
    const byExternalId = await runs.findExisting(projectId, submissionId);
    if (byExternalId) return byExternalId;
    return runs.get(projectId, submissionId).catch((error: unknown) => {
      if (isAppError(error) && error.kind === 'not_found')
        throw new NotFoundError(
          'SUBMISSION_NOT_FOUND',
          `submission ${submissionId} does not exist in project ${projectId} (not uploaded yet?)`,
        );
      throw error;
    });
  }

  async function presentRecommendation(rec: RecommendationRecord, project: Project) {
    const basedOn = rec.basedOnRunId
      ? await runs.get(project.id, rec.basedOnRunId).catch(() => undefined)
      : undefined;
    return presentGradientRecommendation(rec, project, basedOn?.externalRunId ?? null);
  }

  async function allProjects(appId: string | undefined): Promise<Project[]> {
    const found: Project[] = [];
    for (let offset = 0; ; offset += 500) {
      const page = await projects.list({ appId, sort: '-created_at', limit: 500, offset });
      found.push(...page.items);
      if (found.length >= page.total || page.items.length === 0) return found;
    }
  }

  return async (app) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      if (hasZodFastifySchemaValidationErrors(error)) {
        const detail = error.validation.map((issue) => `${issue.instancePath || '/'} ${issue.message}`);
        return reply.status(400).send({
          error: { code: 'VALIDATION_FAILED', message: `invalid request: ${detail[0] ?? ''}`, detail },
        });
      }
      if (isAppError(error)) {
        return reply.status(errorKinds[error.kind].httpStatus).send({
          error: {
            code: error.code,
            message: error.message,
            ...(error.details && { detail: error.details }),
          },
        });
      }
      if (typeof error.statusCode === 'number' && error.statusCode < 500) {
        return reply
          .status(error.statusCode)
          .send({ error: { code: error.code ?? 'BAD_REQUEST', message: error.message } });
      }
      request.log.error({ err: error }, 'unhandled error');
      return reply.status(500).send({ error: { code: 'Sync API Error', message: 'Transaction failure' } });
    });

    app.post(
      '/v1/auth/token',
      { config: { public: true }, schema: { hide: true, body: tokenBody } },
      async (request) => {
        const token = await deps.apiKeys.exchange(request.body.api_key_id, request.body.api_key_secret);
        return { result: { access_token: token.accessToken, expires_at_utc: gradientTime(token.expiresAt) } };
      },
    );

    app.get('/v1/projects/products', { schema: { hide: true } }, async () => ({
      result: ['aws-databricks', 'azure-databricks'],
    }));

    app.post('/v1/projects', { schema: { hide: true, body: projectCreateBody } }, async (request) => {
      const input = projectInputFromGradient(request.body);
      const project = await projects.create(
        { ...input, name: request.body.name },
        principalOf(request).actor,
      );
      return { result: presentGradientProject(project) };
    });

    app.get('/v1/projects', { schema: { hide: true, querystring: projectListQuery } }, async (request) => {
      const appId = request.query.app_id;
      const found = await allProjects(appId);
      return { result: found.map(presentGradientProject) };
    });

    app.get('/v1/projects/:id', { schema: { hide: true, params: projectParams } }, async (request) => ({
      result: presentGradientProject(await projects.get(request.params.id)),
    }));

    app.get(
      '/v1/projects/:id/cluster/template',
      { schema: { hide: true, params: projectParams } },
      async (request) => {
        const project = await projects.get(request.params.id);
        return { result: { custom_tags: { [projectTagKey]: project.id } } };
      },
    );

    app.put(
      '/v1/projects/:id',
      { schema: { hide: true, params: projectParams, body: projectUpdateBody } },
      async (request) => {
        const project = await projects.update(
          request.params.id,
          projectInputFromGradient(request.body),
          principalOf(request).actor,
        );
        return { result: presentGradientProject(project) };
      },
    );

    app.delete('/v1/projects/:id', { schema: { hide: true, params: projectParams } }, async (request) => {
      await projects.remove(request.params.id, principalOf(request).actor);
      return { result: `project ${request.params.id} deleted` };
    });

    app.post('/v1/projects/:id/reset', { schema: { hide: true, params: projectParams } }, async (request) => {
      await projects.reset(request.params.id, principalOf(request).actor);
      return { result: `project ${request.params.id} reset` };
    });

    app.post(
      '/v1/projects/:id/submissions',
      {
        // a JSON submission carries at most a cluster report besides its URI
        bodyLimit: maxClusterReportBytes + 64 * 1024,
        schema: { hide: true, params: projectParams, body: submissionBody },
      },
      async (request) => {
        const projectId = request.params.id;
        await projects.get(projectId);
        const clusterReport = await deps.parseClusterReport(projectId, request.body.cluster_report ?? null);
        const submissionId = `sub_${randomBytes(12).toString('base64url')}`;
        if (request.body.event_log_uri) {
          const { run } = await runs.createFromUri({
            projectId,
            externalRunId: submissionId,
            clusterReport,
            eventlogUri: request.body.event_log_uri,
          });
          return { result: { submission_id: run.externalRunId } };
        }
        // The caller's own bearer token authorizes the upload, as a presigned policy would.
        const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
        return {
          result: {
            submission_id: submissionId,
            upload_details: {
              url: `${request.protocol}://${request.host}${gradientUploadPath}`,
              fields: {
                key: `${projectId}/${submissionId}/${fileNamePlaceholder}`,
                'x-setpoint-token': bearer,
                ...(clusterReport !== null && { 'x-setpoint-cluster-report': JSON.stringify(clusterReport) }),
              },
            },
          },
        };
      },
    );

    app.post(
      gradientUploadPath,
      { config: { public: true }, schema: { hide: true }, bodyLimit: 64 * 1024 * 1024 },
      async (request, reply) => {
        await mkdir(deps.scratchDir, { recursive: true });
        const directory = await mkdtemp(path.join(deps.scratchDir, 'gradient-upload-'));
        try {
          const fields: Record<string, string> = {};
          const files: UploadedFile[] = [];
          const budget = new UploadBudget(deps.maxUploadBytes, deps.maxUploadFiles);
          let receivedFile = false;
          for await (const part of request.parts()) {
            if (part.type === 'field') {
              // a field cut at the multipart field limit is refused, never read as a shorter value
              if (part.valueTruncated) throw fieldTooLarge(part.fieldname);
              fields[part.fieldname] = String(part.value);
              continue;
            }
            if (part.fieldname !== 'file') {
              part.file.resume();
              throw new ValidationError('UPLOAD_UNKNOWN_PART', `unexpected file part "${part.fieldname}"`);
            }
            if (receivedFile) {
              part.file.resume();
              throw new ValidationError(
                'UPLOAD_TOO_MANY_FILES',
                'a presigned upload carries one "file" part (send several logs as one zip)',
              );
            }
            receivedFile = true;
            // Fields come first in a presigned POST; check the token before storing any bytes.
            await deps.apiKeys.authenticate(fields['x-setpoint-token'] ?? '');
            files.push(
              ...(await budget.receive(
                part.file,
                path.join(directory, 'upload'),
                'eventlog',
                new Set(['upload']),
              )),
            );
          }
          await deps.apiKeys.authenticate(fields['x-setpoint-token'] ?? '');
          const key = /^([^/]+)\/([^/]+)\//.exec(fields.key ?? '');
          if (!key?.[1] || !key[2])
            throw new ValidationError(
              'UPLOAD_KEY_INVALID',
              'the "key" field must be <project>/<submission>/<file>',
            );
          if (files.length === 0)
            throw new ValidationError('UPLOAD_NO_EVENTLOG', 'the upload has no "file" part');
          const report = fields['x-setpoint-cluster-report'];
          await runs.createFromUpload({
            projectId: key[1],
            externalRunId: key[2],
            clusterReport: await deps.parseClusterReport(
              key[1],
              report ? parseJsonText(report, 'cluster_report') : null,
            ),
            files,
          });
          return reply.status(204).send();
        } catch (error) {
          throw asUploadError(error);
        } finally {
          await rm(directory, { recursive: true, force: true });
        }
      },
    );

    app.get(
      '/v1/projects/:id/paged/submissions',
      { schema: { hide: true, params: projectParams, querystring: pageQuery } },
      async (request) => {
        const { page, per_page: perPage } = request.query;
        const { items } = await runs.list(request.params.id, { limit: perPage, offset: page * perPage });
        return { items: items.map(presentSubmission) };
      },
    );

    app.get(
      '/v1/projects/:id/submissions/:submissionId',
      { schema: { hide: true, params: submissionParams } },
      async (request) => ({
        result: presentSubmission(await findSubmission(request.params.id, request.params.submissionId)),
      }),
    );

    app.post(
      '/v1/projects/:id/recommendations',
      { schema: { hide: true, params: projectParams } },
      async (request) => {
        const project = await projects.get(request.params.id);
        const rec = await recommendations.request(project.id, { actor: principalOf(request).actor });
        return { result: await presentRecommendation(rec, project) };
      },
    );

    app.get(
      '/v1/projects/:id/recommendations',
      { schema: { hide: true, params: projectParams, querystring: pageQuery } },
      async (request) => {
        const project = await projects.get(request.params.id);
        const { page, per_page: perPage } = request.query;
        const { items } = await recommendations.list(project.id, {
          limit: perPage,
          offset: page * perPage,
        });
        return { result: await Promise.all(items.map((rec) => presentRecommendation(rec, project))) };
      },
    );

    app.get(
      '/v1/projects/:id/recommendations/latest',
      { schema: { hide: true, params: projectParams } },
      async (request) => {
        const project = await projects.get(request.params.id);
        return { result: await presentRecommendation(await recommendations.latest(project.id), project) };
      },
    );

    app.get(
      '/v1/projects/:id/recommendations/:recommendationId',
      { schema: { hide: true, params: recommendationParams } },
      async (request) => {
        const project = await projects.get(request.params.id);
        const rec = await recommendations.get(project.id, request.params.recommendationId);
        return { result: await presentRecommendation(rec, project) };
      },
    );
  };
}
