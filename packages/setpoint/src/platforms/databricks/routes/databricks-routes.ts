import type { ProjectSettings } from '@setpoint/api-contract';
import { idParams } from '@setpoint/api-contract';
import {
  accessCheckBody,
  accessCheckSchema,
  billingAccuracySchema,
  collectRunBody,
  collectRunQueuedSchema,
  type DetachResource,
  type DiscoverResource,
  detachBody,
  detachSchema,
  discoverQuery,
  discoverSchema,
  type ImportResource,
  importBody,
  importSchema,
  runBillingListSchema,
  webhookAcceptedSchema,
  webhookParams,
  webhookPayloadSchema,
  workspaceAuthBody,
  workspaceAuthSchema,
} from '@setpoint/api-contract/databricks';
import { UnauthorizedError, ValidationError } from '@setpoint/foundation/errors';
import { median } from '@setpoint/foundation/statistics';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../../service/auth/principal.js';
import { FailureBackoff, rateLimited, WindowCounter } from '../../../service/auth/request-throttles.js';
import type { ProjectService } from '../../../service/projects/project-service.js';
import type { WorkspaceService } from '../../../service/workspaces/workspace-service.js';
import { withAuth } from '../auth/credential-fields.js';
import { workspaceAuthOf } from '../auth/workspace-auth.js';
import { hasBillingEstimate } from '../billing/billed-cost.js';
import type { DatabricksIntegration } from '../databricks-integration.js';
import type { DiscoverResult } from '../onboarding/discovery.js';
import type { ImportedJob } from '../onboarding/onboarding-service.js';
import { parseBasicAuth, secretsEqual } from './webhook-auth.js';

const bearer = [{ bearerAuth: [] }];

function presentDiscovery(result: DiscoverResult): DiscoverResource {
  return {
    window_days: result.windowDays,
    jobs: result.jobs.map((job) => ({
      job_id: job.jobId,
      name: job.name,
      compute: job.compute,
      photon: job.photon,
      autoscale: job.autoscale,
      spot: job.spot,
      run_submit: job.runSubmit,
      imported: job.imported,
      runs_in_window: job.runsInWindow,
      core_hours_in_window: job.coreHoursInWindow,
      monthly_cost_usd: job.monthlyCostUsd,
      cost_note: job.costNote,
      estimated_monthly_savings_usd: job.estimatedMonthlySavingsUsd,
      saving_basis: job.savingBasis,
      saving_note: job.savingNote,
    })),
    findings: result.findings.map((finding) => ({
      id: finding.id,
      title: finding.title,
      job_ids: finding.jobIds,
      detail: finding.detail,
    })),
    timeline: result.timeline.map((point) => ({
      day: point.day,
      jobs: point.jobs,
      core_hours: point.coreHours,
    })),
  };
}

function presentImport(jobs: ImportedJob[]): ImportResource {
  return {
    jobs: jobs.map((job) => ({
      job_id: job.jobId,
      name: job.name,
      projects: job.projects.map((project) => ({ id: project.id, cluster_key: project.clusterKey })),
      skipped: job.skipped,
    })),
  };
}

type BillingRow = Awaited<ReturnType<DatabricksIntegration['store']['allBilling']>>[number];

function presentBilling(row: BillingRow) {
  const estimated = hasBillingEstimate(row);
  return {
    run_id: row.run_id,
    databricks_run_id: row.databricks_run_id,
    estimated_dbus: estimated ? row.estimated_dbus : null,
    estimated_dbu_usd: estimated ? row.estimated_dbu_usd : null,
    billed_dbus: row.billed_dbus,
    billed_dbu_usd: row.billed_dbu_usd,
    difference_usd:
      row.billed_dbu_usd === null || !estimated ? null : row.billed_dbu_usd - row.estimated_dbu_usd,
    restated: row.restated === 1,
    billed_at: row.billed_at,
    settled: row.next_check_at === null,
  };
}

function billingAccuracy(rows: BillingRow[]) {
  const estimated = rows.filter(hasBillingEstimate);
  const billed = estimated.filter((row) => row.billed_dbu_usd !== null && row.billed_dbu_usd > 0);
  return {
    estimated_runs: estimated.length,
    billed_runs: billed.length,
    restated_runs: billed.filter((row) => row.restated === 1).length,
    median_abs_error: median(
      billed.map(
        (row) => Math.abs(row.estimated_dbu_usd - (row.billed_dbu_usd ?? 0)) / (row.billed_dbu_usd ?? 1),
      ),
    ),
    estimated_dbu_usd: billed.reduce((sum, row) => sum + row.estimated_dbu_usd, 0),
    billed_dbu_usd: billed.reduce((sum, row) => sum + (row.billed_dbu_usd ?? 0), 0),
  };
}

export function databricksRoutes(deps: {
  integration: DatabricksIntegration;
  workspaces: Pick<WorkspaceService, 'credentials' | 'update'>;
  projects: Pick<ProjectService, 'get'>;
  webhookRateLimitPerMinute: number;
}): FastifyPluginAsyncZod {
  const { integration } = deps;
  const deliveries = new WindowCounter(deps.webhookRateLimitPerMinute, 60_000);
  const failures = new FailureBackoff(20, 5 * 60_000);
  /**
   * Basic auth before the body is read (a large unauthenticated body costs nothing), then the
   * workspace's own budget: one noisy sender cannot spend another workspace's, nor the API's.
   */
  const authenticateDelivery = async (request: FastifyRequest): Promise<void> => {
    const { workspaceId } = request.params as { workspaceId: string };
    const waitMs = failures.waitMs(request.ip);
    if (waitMs > 0) throw rateLimited('too many webhook deliveries with wrong credentials', waitMs / 1000);
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
    if (!valid) {
      failures.fail(request.ip);
      throw new UnauthorizedError('invalid webhook credentials');
    }
    deliveries.hit(workspaceId, `webhook deliveries to workspace ${workspaceId}`);
  };
  return async (app) => {
    app.post(
      '/api/v1/webhooks/databricks/:workspaceId',
      {
        config: { public: true },
        onRequest: authenticateDelivery,
        bodyLimit: 1024 * 1024,
        schema: {
          tags: ['databricks'],
          summary: 'Job notification receiver (generic webhook destination, Basic auth per workspace)',
          params: webhookParams,
          body: webhookPayloadSchema,
          response: { 202: webhookAcceptedSchema },
        },
      },
      async (request, reply) => {
        const { workspaceId } = request.params;
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

    app.put(
      '/api/v1/workspaces/:id/auth',
      {
        schema: {
          tags: ['databricks'],
          summary:
            'Set or rotate how Setpoint signs in (PAT, OAuth M2M, Entra ID service principal); other credentials are kept',
          security: bearer,
          params: idParams,
          body: workspaceAuthBody,
          response: { 200: workspaceAuthSchema },
        },
      },
      async (request) => {
        const { id } = request.params;
        const { credentials } = await deps.workspaces.credentials(id);
        const next = withAuth(credentials, request.body);
        const auth = workspaceAuthOf(next);
        const updated = await deps.workspaces.update(id, { credentials: next }, principalOf(request));
        return {
          auth_type: auth.method,
          client_id: auth.method === 'pat' ? null : auth.clientId,
          updated_at: updated.updatedAt,
        };
      },
    );

    app.post(
      '/api/v1/workspaces/:id/check',
      {
        schema: {
          deprecated: true,
          tags: ['databricks'],
          summary:
            'Check what Setpoint can do in the workspace, line by line; deprecated: POST /api/v1/connections/:id/check',
          security: bearer,
          params: idParams,
          body: accessCheckBody,
          response: { 200: accessCheckSchema },
        },
      },
      async (request) => {
        const checks = await integration.checkAccess(
          request.params.id,
          request.body.log_destination,
          request.body.sql_warehouse_id,
        );
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
          querystring: discoverQuery,
          response: { 200: discoverSchema },
        },
      },
      async (request) =>
        presentDiscovery(await integration.discover(request.params.id, request.query.window_days)),
    );

    app.post(
      '/api/v1/workspaces/:id/import',
      {
        schema: {
          tags: ['databricks'],
          summary: 'Import jobs: one project per job cluster, wired for collection',
          security: bearer,
          params: idParams,
          body: importBody,
          response: { 200: importSchema },
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
        return presentImport(jobs);
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
          body: detachBody,
          response: { 200: detachSchema },
        },
      },
      async (request): Promise<DetachResource> => {
        const detached = await integration.onboarding.detach(
          request.params.id,
          request.body.job_id,
          principalOf(request).actor,
        );
        return { job_id: detached.jobId, projects: detached.projects };
      },
    );

    app.post(
      '/api/v1/projects/:id/databricks-runs',
      {
        schema: {
          tags: ['databricks'],
          summary: 'Collect a finished Databricks run for this project from its workspace',
          security: bearer,
          params: idParams,
          body: collectRunBody,
          response: { 202: collectRunQueuedSchema },
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
      '/api/v1/projects/:id/billing',
      {
        schema: {
          tags: ['databricks'],
          summary: "Each run's DBU cost estimated from list prices and as billed (system.billing.usage)",
          security: bearer,
          params: idParams,
          response: { 200: runBillingListSchema },
        },
      },
      async (request) => {
        await deps.projects.get(request.params.id);
        const rows = await integration.store.billingOfProjects([request.params.id]);
        return { items: rows.map(presentBilling) };
      },
    );

    app.get(
      '/api/v1/billing/accuracy',
      {
        schema: {
          tags: ['databricks'],
          summary: 'How close list-price DBU estimates came to the bill, across the organization',
          security: bearer,
          response: { 200: billingAccuracySchema },
        },
      },
      async () => billingAccuracy(await integration.store.allBilling()),
    );
  };
}
