import {
  type AppliedConfigResource,
  type ApprovalResource,
  appliedConfigListSchema,
  approvalListQuery,
  approvalListSchema,
  approvalSchema,
  exportQuery,
  idParams,
  recommendationParams,
  rejectBody,
  resumeAutoApplySchema,
  rollbackBody,
  rollbackSchema,
} from '@setpoint/api-contract';
import { NotFoundError } from '@setpoint/foundation/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppliedChange } from '../../service/apply/applied-change-records.js';
import type { ApplyService, ExplainedApproval } from '../../service/apply/apply-service.js';
import { principalOf } from '../../service/auth/principal.js';

const bearer = [{ bearerAuth: [] }];
const tags = ['apply'];

/** An entry of the apply history as the API shows it, in its platform's words. */
export function presentAppliedChange(
  applies: Pick<ApplyService, 'describe'>,
  change: AppliedChange,
): AppliedConfigResource {
  const { cluster, summary } = applies.describe(change);
  return {
    id: change.id,
    recommendation_id: change.recommendationId,
    kind: change.kind,
    platform: change.platform,
    cluster,
    summary,
    undoes: change.undoes,
    actor: change.actor,
    reason: change.reason,
    created_at: change.createdAt,
    met_sla_at: change.metSlaAt,
  };
}

/** An approval as the API shows it. */
export function presentApproval(approval: ExplainedApproval): ApprovalResource {
  return {
    recommendation_id: approval.recommendationId,
    project_id: approval.projectId,
    state: approval.state,
    waiting_since: approval.waitingSince,
    learning_run: approval.learningRun,
    explanation: approval.explanation,
    decided_at: approval.decidedAt,
    decided_by: approval.decidedBy,
    reason: approval.reason,
  };
}

/** What waits for approval in each of these projects, as the API shows it (the projects' `awaiting_approval`). */
export function awaitingApprovalOf(applies: Pick<ApplyService, 'awaitingApproval'>) {
  return async (projectIds: readonly string[]): Promise<Map<string, ApprovalResource>> => {
    const waiting = await applies.awaitingApproval(projectIds);
    return new Map([...waiting].map(([projectId, approval]) => [projectId, presentApproval(approval)]));
  };
}

/**
 * What Setpoint wrote into a project's cluster, on every platform: the history and the pause, rolling
 * back, resuming auto-apply, and a recommendation as the file a team keeps (`docs/api.md`).
 */
export function applyRoutes(applies: ApplyService): FastifyPluginAsyncZod {
  const present = (change: AppliedChange) => presentAppliedChange(applies, change);
  return async (app) => {
    app.get(
      '/api/v1/projects/:id/applied-configs',
      {
        schema: {
          tags,
          summary:
            "Every configuration Setpoint wrote into the project's cluster, oldest first, and whether auto-apply is paused",
          security: bearer,
          params: idParams,
          response: { 200: appliedConfigListSchema },
        },
      },
      async (request) => {
        const [history, guard, writes] = await Promise.all([
          applies.history(request.params.id),
          applies.guard(request.params.id),
          applies.writes(request.params.id),
        ]);
        return {
          items: history.map(present),
          writer: writes ? ('setpoint' as const) : ('launcher' as const),
          auto_apply_paused: guard.paused,
          pause_reason: guard.pauseReason,
        };
      },
    );

    app.post(
      '/api/v1/projects/:id/rollback',
      {
        schema: {
          tags,
          summary:
            "Write an earlier applied configuration back into the project's cluster (default: the newest before the one in place that met the SLA, else the cold start); auto-apply pauses",
          security: bearer,
          params: idParams,
          body: rollbackBody,
          response: { 200: rollbackSchema },
        },
      },
      async (request) => {
        const result = await applies.rollback(request.params.id, {
          toConfigId: request.body.to,
          actor: principalOf(request).actor,
        });
        const last = result.recorded.at(-1);
        if (!last) throw new NotFoundError('NO_EARLIER_CONFIG', 'nothing was rolled back');
        return {
          config: present(last),
          undone: result.recorded.map(present),
          changed_fields: result.changes.map((change) => change.what),
          auto_apply_paused: result.pauseReason !== null,
          pause_reason: result.pauseReason,
        };
      },
    );

    app.post(
      '/api/v1/projects/:id/resume-auto-apply',
      {
        schema: {
          tags,
          summary: 'Resume auto-apply after an external change or a revert paused it',
          security: bearer,
          params: idParams,
          response: { 200: resumeAutoApplySchema },
        },
      },
      async (request) => {
        await applies.resumeAutoApply(request.params.id, principalOf(request).actor);
        return { resumed: true as const };
      },
    );

    app.get(
      '/api/v1/approvals',
      {
        schema: {
          tags,
          summary:
            "Learning runs waiting for a person's approval (apply mode approve-learning), or those approved, rejected or superseded; newest first",
          security: bearer,
          querystring: approvalListQuery,
          response: { 200: approvalListSchema },
        },
      },
      async (request) => {
        const items = await applies.listApprovals({
          state: request.query.state,
          projectId: request.query.project_id,
          limit: request.query.limit,
        });
        return { items: items.map(presentApproval) };
      },
    );

    app.post(
      '/api/v1/projects/:id/recommendations/:rid/approve',
      {
        schema: {
          tags,
          summary:
            'Approve a learning run waiting for approval: recorded and its write queued (409 when it was superseded, rejected, or auto-apply is paused)',
          security: bearer,
          params: recommendationParams,
          response: { 202: approvalSchema },
        },
      },
      async (request, reply) => {
        const approval = await applies.approve(
          request.params.id,
          request.params.rid,
          principalOf(request).actor,
        );
        return reply.status(202).send(presentApproval(approval));
      },
    );

    app.post(
      '/api/v1/projects/:id/recommendations/:rid/reject',
      {
        schema: {
          tags,
          summary: 'Reject a learning run waiting for approval: it is never written',
          security: bearer,
          params: recommendationParams,
          body: rejectBody,
          response: { 200: approvalSchema },
        },
      },
      async (request) =>
        presentApproval(
          await applies.reject(
            request.params.id,
            request.params.rid,
            principalOf(request).actor,
            request.body.reason ?? null,
          ),
        ),
    );

    app.get(
      '/api/v1/projects/:id/export',
      {
        schema: {
          tags,
          summary:
            'A recommendation as the file a team keeps: Terraform, or the JSON the platform is written with',
          security: bearer,
          params: idParams,
          querystring: exportQuery,
        },
      },
      async (request, reply) => {
        const { format, text } = await applies.exportRecommendation(request.params.id, {
          format: request.query.format,
          recommendationId: request.query.recommendation || undefined,
        });
        return reply.type(format === 'json' ? 'application/json' : 'text/plain; charset=utf-8').send(text);
      },
    );
  };
}
