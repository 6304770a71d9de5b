import type { ProjectSettings } from '@setpoint/api-contract';
import { idParams } from '@setpoint/api-contract';
import {
  type EmrAppliedConfigResource,
  type EmrDiscoverResource,
  emrAccessCheckBody,
  emrAccessCheckSchema,
  emrAccountBody,
  emrAccountListSchema,
  emrAccountSchema,
  emrAppliedConfigListSchema,
  emrApplyBody,
  emrApplySchema,
  emrCollectBody,
  emrCollectQueuedSchema,
  emrDiscoverQuery,
  emrDiscoverSchema,
  emrExportQuery,
  emrImportBody,
  emrImportSchema,
  emrResumeAutoApplySchema,
  emrRollbackBody,
  emrRollbackSchema,
} from '@setpoint/api-contract/emr';
import { ValidationError } from '@setpoint/foundation/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppliedChange } from '../../../service/apply/applied-change-records.js';
import type { ApplyService } from '../../../service/apply/apply-service.js';
import { principalOf } from '../../../service/auth/principal.js';
import type { ProjectService } from '../../../service/projects/project-service.js';
import { readyToCollect } from '../connection/emr-access-check.js';
import { connectionOf, logStoreKeysOf, presentAccount } from '../connection/emr-account-settings.js';
import { parseGroupingRule } from '../discovery/grouping.js';
import type { DiscoveredWorkload, EmrIntegration } from '../emr-integration.js';
import { emrServerlessRoutes } from './emr-serverless-routes.js';

const bearer = [{ bearerAuth: [] }];
const tags = ['emr'];

/**
 * An entry of the apply history in the shape the deprecated `/emr/…` aliases answered with before the
 * history was one for every platform (`cluster_id` and `actions` at the top level).
 */
function presentLegacyConfig(applies: Pick<ApplyService, 'describe'>, change: AppliedChange) {
  const { cluster } = applies.describe(change);
  return {
    id: change.id,
    recommendation_id: change.recommendationId,
    kind: change.kind as Exclude<AppliedChange['kind'], 'baseline'>,
    cluster_id: String(cluster.cluster_id ?? ''),
    actions: (cluster.actions ?? []) as EmrAppliedConfigResource['actions'],
    undoes: change.undoes,
    actor: change.actor,
    reason: change.reason,
    created_at: change.createdAt,
  };
}

function presentWorkload(workload: DiscoveredWorkload): EmrDiscoverResource['workloads'][number] {
  const newest = workload.runs.at(-1);
  return {
    key: workload.key,
    recurring: workload.recurring,
    runs: workload.runs.map((run) => ({
      cluster_id: run.clusterId,
      cluster_name: run.clusterName,
      transient: run.transient,
      step_id: run.stepId,
      step_name: run.stepName,
      state: run.stepState,
      started_at: run.startedAt,
      ended_at: run.endedAt,
    })),
    cluster_ids: workload.clusterIds,
    long_running_cluster_id: newest && !newest.transient ? newest.clusterId : null,
    project_id: workload.projectId,
  };
}

/** The EMR platform's HTTP routes (`docs/api.md`, tag `emr`). */
export function emrRoutes(deps: {
  integration: EmrIntegration;
  projects: Pick<ProjectService, 'get'>;
  applies: ApplyService;
}): FastifyPluginAsyncZod {
  const { integration, applies } = deps;
  const legacy = (change: AppliedChange) => presentLegacyConfig(applies, change);
  /** The project's EMR account, or the one given. */
  const accountOfProject = async (projectId: string, given?: string) => {
    const project = await deps.projects.get(projectId);
    const accountId = given ?? project.workspaceId;
    if (!accountId)
      throw new ValidationError('EMR_ACCOUNT_REQUIRED', 'the project has no EMR account; pass account_id');
    return { project, accountId };
  };
  return async (app) => {
    await app.register(emrServerlessRoutes(integration.serverless));
    app.post(
      '/api/v1/emr/accounts',
      {
        schema: {
          deprecated: true,
          tags,
          summary:
            'Connect an AWS account and region: credentials are stored encrypted and never shown; deprecated: POST /api/v1/connections',
          security: bearer,
          body: emrAccountBody,
          response: { 201: emrAccountSchema },
        },
      },
      async (request, reply) => {
        const account = await integration.accounts.create(
          {
            name: request.body.name,
            connection: connectionOf(request.body),
            logStoreKeys: logStoreKeysOf(request.body),
            rule: request.body.grouping,
          },
          principalOf(request),
        );
        return reply.status(201).send(presentAccount(account));
      },
    );

    app.get(
      '/api/v1/emr/accounts',
      {
        schema: {
          deprecated: true,
          tags,
          summary: 'Every EMR account; deprecated: GET /api/v1/connections',
          security: bearer,
          response: { 200: emrAccountListSchema },
        },
      },
      async () => ({ items: (await integration.accounts.list()).map(presentAccount) }),
    );

    app.get(
      '/api/v1/emr/accounts/:id',
      {
        schema: {
          deprecated: true,
          tags,
          summary:
            'One EMR account (its sign-in kind and role, never its secrets); deprecated: GET /api/v1/connections/:id',
          security: bearer,
          params: idParams,
          response: { 200: emrAccountSchema },
        },
      },
      async (request) => presentAccount(await integration.accounts.get(request.params.id)),
    );

    app.delete(
      '/api/v1/emr/accounts/:id',
      {
        schema: {
          deprecated: true,
          tags,
          summary:
            'Disconnect an EMR account: its projects and runs stay, unlinked; deprecated: DELETE /api/v1/connections/:id',
          security: bearer,
          params: idParams,
        },
      },
      async (request, reply) => {
        await integration.accounts.remove(request.params.id, principalOf(request).actor);
        return reply.status(204).send();
      },
    );

    app.post(
      '/api/v1/emr/accounts/:id/check',
      {
        schema: {
          deprecated: true,
          tags,
          summary:
            'Check each permission Setpoint needs in the account, one line each; deprecated: POST /api/v1/connections/:id/check',
          security: bearer,
          params: idParams,
          body: emrAccessCheckBody,
          response: { 200: emrAccessCheckSchema },
        },
      },
      async (request) => {
        const checks = await integration.checkAccess(request.params.id, request.body.log_locations);
        return {
          ok: readyToCollect(checks),
          checks: checks.map((check) => ({
            permission: check.permission,
            needed_for: check.neededFor,
            status: check.status,
            detail: check.detail,
            resource: check.resource ?? null,
          })),
        };
      },
    );

    app.get(
      '/api/v1/emr/accounts/:id/discover',
      {
        schema: {
          tags,
          summary: 'Clusters and their Spark steps, grouped into recurring workloads by a rule',
          security: bearer,
          params: idParams,
          querystring: emrDiscoverQuery,
          response: { 200: emrDiscoverSchema },
        },
      },
      async (request) => {
        const found = await integration.discover(request.params.id, {
          sinceDays: request.query.since_days,
          rule: request.query.group_by ? parseGroupingRule(request.query.group_by) : undefined,
        });
        return {
          grouping: found.rule,
          clusters: found.clusters,
          workloads: found.workloads.map(presentWorkload),
          ungrouped: found.ungrouped.map(({ run, reason }) => ({
            cluster_id: run.clusterId,
            step_id: run.stepId,
            reason,
          })),
        };
      },
    );

    app.post(
      '/api/v1/emr/accounts/:id/import',
      {
        schema: {
          tags,
          summary: 'Import workloads: one project each, their finished runs queued for collection',
          security: bearer,
          params: idParams,
          body: emrImportBody,
          response: { 200: emrImportSchema },
        },
      },
      async (request) => {
        const result = await integration.importWorkloads(
          request.params.id,
          {
            keys: request.body.workloads,
            sinceDays: request.body.since_days,
            rule: request.body.group_by ? parseGroupingRule(request.body.group_by) : undefined,
            // project creation validates the settings against the full schema
            settings: request.body.settings as Partial<ProjectSettings> | undefined,
            collectHistory: request.body.collect_history,
          },
          principalOf(request).actor,
        );
        return {
          projects: result.imported.map((entry) => ({
            id: entry.projectId,
            workload: entry.key,
            cluster_id: entry.clusterId,
            created: entry.created,
            queued_runs: entry.queuedRuns,
          })),
          missing: result.missing,
        };
      },
    );

    app.post(
      '/api/v1/projects/:id/emr-runs',
      {
        schema: {
          tags,
          summary: 'Collect a finished EMR step for this project from its account',
          security: bearer,
          params: idParams,
          body: emrCollectBody,
          response: { 202: emrCollectQueuedSchema },
        },
      },
      async (request, reply) => {
        const { project, accountId } = await accountOfProject(request.params.id, request.body.account_id);
        await integration.accounts.get(accountId);
        await integration.enqueueCollect(
          accountId,
          request.body.cluster_id,
          request.body.step_id,
          project.id,
        );
        return reply.status(202).send({
          queued: true as const,
          account_id: accountId,
          cluster_id: request.body.cluster_id,
          step_id: request.body.step_id,
        });
      },
    );

    // Deprecated aliases for one release: the apply core's routes serve every platform
    // (`/api/v1/projects/:id/{applied-configs,rollback,resume-auto-apply,export}`, and applying through the
    // recommendation's own route).
    app.post(
      '/api/v1/projects/:id/emr/apply',
      {
        schema: {
          tags,
          deprecated: true,
          summary:
            "Deprecated: POST /api/v1/projects/:id/recommendations/:rid/apply. Resize the project's long-running cluster to a recommendation",
          security: bearer,
          params: idParams,
          body: emrApplyBody,
          response: { 200: emrApplySchema },
        },
      },
      async (request) => {
        const { project } = await accountOfProject(request.params.id);
        const recommendationId =
          request.body.recommendation_id ?? (await integration.latestRecommendationId(project.id));
        const { change } = await applies.apply(project.id, recommendationId, {
          actor: principalOf(request).actor,
          kind: 'apply',
        });
        const config = change ? legacy(change) : null;
        return { config, actions: config?.actions ?? [] };
      },
    );

    app.post(
      '/api/v1/projects/:id/emr/rollback',
      {
        schema: {
          tags,
          deprecated: true,
          summary: 'Deprecated: POST /api/v1/projects/:id/rollback',
          security: bearer,
          params: idParams,
          body: emrRollbackBody,
          response: { 200: emrRollbackSchema },
        },
      },
      async (request) => {
        const { recorded } = await applies.rollback(request.params.id, {
          toConfigId: request.body.to,
          actor: principalOf(request).actor,
        });
        return { undone: recorded.map(legacy) };
      },
    );

    app.get(
      '/api/v1/projects/:id/emr/applied-configs',
      {
        schema: {
          tags,
          deprecated: true,
          summary: 'Deprecated: GET /api/v1/projects/:id/applied-configs',
          security: bearer,
          params: idParams,
          response: { 200: emrAppliedConfigListSchema },
        },
      },
      async (request) => {
        const [history, guard] = await Promise.all([
          applies.history(request.params.id),
          applies.guard(request.params.id),
        ]);
        return {
          items: history.filter((change) => change.kind !== 'baseline').map(legacy),
          auto_apply_paused: guard.paused,
          pause_reason: guard.pauseReason,
        };
      },
    );

    app.post(
      '/api/v1/projects/:id/emr/resume-auto-apply',
      {
        schema: {
          tags,
          deprecated: true,
          summary: 'Deprecated: POST /api/v1/projects/:id/resume-auto-apply',
          security: bearer,
          params: idParams,
          response: { 200: emrResumeAutoApplySchema },
        },
      },
      async (request) => {
        await applies.resumeAutoApply(request.params.id, principalOf(request).actor);
        return { resumed: true as const };
      },
    );

    app.get(
      '/api/v1/projects/:id/emr/export',
      {
        schema: {
          tags,
          deprecated: true,
          summary: 'Deprecated: GET /api/v1/projects/:id/export (its default format here stays json)',
          security: bearer,
          params: idParams,
          querystring: emrExportQuery,
        },
      },
      async (request, reply) => {
        const { format, text } = await applies.exportRecommendation(request.params.id, {
          format: request.query.format,
          recommendationId: request.query.recommendation,
        });
        return reply.type(format === 'json' ? 'application/json' : 'text/plain; charset=utf-8').send(text);
      },
    );
  };
}
