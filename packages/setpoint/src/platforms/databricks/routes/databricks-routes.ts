import { UnauthorizedError, ValidationError } from '@setpoint/foundation/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { principalOf } from '../../../service/auth/principal.js';
import type { ProjectService } from '../../../service/projects/project-service.js';
import type { ProjectSettings } from '../../../service/projects/project-settings.js';
import type { WorkspaceService } from '../../../service/workspaces/workspace-service.js';
import type { DatabricksIntegration } from '../databricks-integration.js';
import type { AppliedConfig } from '../store/databricks-repository.js';
import { parseBasicAuth, secretsEqual } from './webhook-auth.js';

const bearer = [{ bearerAuth: [] }];
const idParams = z.object({ id: z.string().min(1).max(100) });
const databricksId = z.union([z.string(), z.number()]).transform(String);

/** The job webhook Databricks POSTs: ids may be numbers or strings. */
export const webhookPayloadSchema = z.looseObject({
  event_type: z.string(),
  workspace_id: databricksId.optional(),
  run: z.looseObject({ run_id: databricksId, parent_run_id: databricksId.optional() }),
  job: z.looseObject({ job_id: databricksId, name: z.string().optional() }).optional(),
  task: z.looseObject({ task_key: z.string() }).optional(),
});

const appliedConfigSchema = z.object({
  id: z.string(),
  recommendation_id: z.string().nullable(),
  kind: z.string(),
  cluster: z.record(z.string(), z.unknown()),
  actor: z.string(),
  reason: z.string(),
  created_at: z.number(),
});

function presentConfig(config: AppliedConfig): z.infer<typeof appliedConfigSchema> {
  return {
    id: config.id,
    recommendation_id: config.recommendationId,
    kind: config.kind,
    cluster: config.clusterSpec,
    actor: config.actor,
    reason: config.reason,
    created_at: config.createdAt,
  };
}

export function databricksRoutes(deps: {
  integration: DatabricksIntegration;
  workspaces: Pick<WorkspaceService, 'credentials'>;
  projects: Pick<ProjectService, 'get'>;
}): FastifyPluginAsyncZod {
  const { integration } = deps;
  return async (app) => {
    app.post(
      '/api/v1/webhooks/databricks/:workspaceId',
      {
        config: { public: true },
        schema: {
          tags: ['databricks'],
          summary: 'Job notification receiver (generic webhook destination, Basic auth per workspace)',
          params: z.object({ workspaceId: z.string().min(1).max(100) }),
          body: webhookPayloadSchema,
          response: { 202: z.object({ accepted: z.boolean(), duplicate: z.boolean() }) },
        },
      },
      async (request, reply) => {
        const { workspaceId } = request.params;
        const given = parseBasicAuth(request.headers.authorization);
        const expected = await deps.workspaces
          .credentials(workspaceId)
          .then((found) => found.webhookCredentials)
          .catch(() => null);
        const valid =
          given !== undefined &&
          expected?.username !== undefined &&
          expected.password !== undefined &&
          secretsEqual(given.username, expected.username) &&
          secretsEqual(given.password, expected.password);
        if (!valid) throw new UnauthorizedError('invalid webhook credentials');
        const payload = request.body;
        const runId = payload.run.parent_run_id ?? payload.run.run_id;
        const first = await integration.store.firstDelivery(
          workspaceId,
          `${workspaceId}:${payload.event_type}:${payload.run.run_id}`,
        );
        if (first && (payload.event_type === 'jobs.on_success' || payload.event_type === 'jobs.on_failure')) {
          await integration.enqueueCollect(workspaceId, runId);
        }
        return reply.status(202).send({ accepted: true, duplicate: !first });
      },
    );

    app.post(
      '/api/v1/workspaces/:id/check',
      {
        schema: {
          tags: ['databricks'],
          summary: 'Check what Setpoint can do in the workspace, line by line',
          security: bearer,
          params: idParams,
          body: z.object({ log_destination: z.string().max(1000).optional() }).default({}),
          response: {
            200: z.object({
              ok: z.boolean(),
              checks: z.array(
                z.object({
                  check: z.string(),
                  ok: z.boolean(),
                  detail: z.string(),
                  fix: z.string().optional(),
                }),
              ),
            }),
          },
        },
      },
      async (request) => {
        const checks = await integration.checkAccess(request.params.id, request.body.log_destination);
        return { ok: checks.every((check) => check.ok), checks };
      },
    );

    app.get(
      '/api/v1/workspaces/:id/discover',
      {
        schema: {
          tags: ['databricks'],
          summary: 'Every job in the workspace with its compute, monthly cost and findings',
          security: bearer,
          params: idParams,
          querystring: z.object({ window_days: z.coerce.number().int().min(1).max(60).default(30) }),
        },
      },
      async (request) => integration.discover(request.params.id, request.query.window_days),
    );

    app.post(
      '/api/v1/workspaces/:id/import',
      {
        schema: {
          tags: ['databricks'],
          summary: 'Import jobs: one project per job cluster, wired for collection',
          security: bearer,
          params: idParams,
          body: z.object({
            job_ids: z.array(z.string().min(1).max(40)).min(1).max(200),
            settings: z.record(z.string(), z.unknown()).optional(),
            log_destination: z.string().max(1000).optional(),
          }),
        },
      },
      async (request) => {
        // project creation validates the settings against the full schema
        const settings = request.body.settings as Partial<ProjectSettings> | undefined;
        const jobs = await integration.onboarding.importJobs(
          request.params.id,
          { jobIds: request.body.job_ids, settings, logDestination: request.body.log_destination },
          principalOf(request).actor,
        );
        return { jobs };
      },
    );

    app.post(
      '/api/v1/workspaces/:id/detach',
      {
        schema: {
          tags: ['databricks'],
          summary: 'Undo the import of a job: its settings are restored exactly',
          security: bearer,
          params: idParams,
          body: z.object({ job_id: z.string().min(1).max(40) }),
        },
      },
      async (request) =>
        integration.onboarding.detach(request.params.id, request.body.job_id, principalOf(request).actor),
    );

    app.post(
      '/api/v1/projects/:id/databricks-runs',
      {
        schema: {
          tags: ['databricks'],
          summary: 'Collect a finished Databricks run for this project from its workspace',
          security: bearer,
          params: idParams,
          body: z.object({ run_id: databricksId, workspace_id: z.string().optional() }),
          response: {
            202: z.object({ queued: z.literal(true), workspace_id: z.string(), run_id: z.string() }),
          },
        },
      },
      async (request, reply) => {
        const project = await deps.projects.get(request.params.id);
        const workspaceId = request.body.workspace_id ?? project.workspaceId;
        if (!workspaceId)
          throw new ValidationError('WORKSPACE_REQUIRED', 'the project has no workspace; pass workspace_id');
        await integration.enqueueCollect(workspaceId, request.body.run_id, project.id);
        return reply
          .status(202)
          .send({ queued: true as const, workspace_id: workspaceId, run_id: request.body.run_id });
      },
    );

    app.get(
      '/api/v1/projects/:id/applied-configs',
      {
        schema: {
          tags: ['databricks'],
          summary: 'Every configuration written into the job, oldest first, and whether auto-apply is paused',
          security: bearer,
          params: idParams,
          response: {
            200: z.object({
              items: z.array(appliedConfigSchema),
              auto_apply_paused: z.boolean(),
              pause_reason: z.string().nullable(),
            }),
          },
        },
      },
      async (request) => {
        await deps.projects.get(request.params.id);
        const [history, guard] = await Promise.all([
          integration.applier.history(request.params.id),
          integration.store.guard(request.params.id),
        ]);
        return {
          items: history.map(presentConfig),
          auto_apply_paused: guard.paused,
          pause_reason: guard.pauseReason,
        };
      },
    );

    app.post(
      '/api/v1/projects/:id/rollback',
      {
        schema: {
          tags: ['databricks'],
          summary:
            'Write an earlier applied configuration back into the job (default: the one before the current)',
          security: bearer,
          params: idParams,
          body: z.object({ to: z.string().optional() }).default({}),
          response: { 200: z.object({ config: appliedConfigSchema, changed_fields: z.array(z.string()) }) },
        },
      },
      async (request) => {
        const result = await integration.applier.rollback(request.params.id, {
          toConfigId: request.body.to,
          actor: principalOf(request).actor,
        });
        return { config: presentConfig(result.config), changed_fields: result.changedFields };
      },
    );

    app.get(
      '/api/v1/projects/:id/export',
      {
        schema: {
          tags: ['databricks'],
          summary: 'A recommendation as Terraform (new_cluster + lifecycle.ignore_changes) or JSON',
          security: bearer,
          params: idParams,
          querystring: z.object({
            format: z.enum(['terraform', 'json']).default('terraform'),
            recommendation: z.string().max(100).optional(),
          }),
        },
      },
      async (request, reply) => {
        const text = await integration.exportRecommendation(
          request.params.id,
          request.query.format,
          request.query.recommendation,
        );
        return reply
          .type(request.query.format === 'json' ? 'application/json' : 'text/plain; charset=utf-8')
          .send(text);
      },
    );

    app.post(
      '/api/v1/projects/:id/resume-auto-apply',
      {
        schema: {
          tags: ['databricks'],
          summary: 'Resume auto-apply after an external change paused it',
          security: bearer,
          params: idParams,
        },
      },
      async (request) => {
        await deps.projects.get(request.params.id);
        await integration.applier.resumeAutoApply(request.params.id);
        return { resumed: true };
      },
    );
  };
}
