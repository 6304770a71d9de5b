import type { ApplyMode } from '@setpoint/api-contract';
import { ConflictError, NotFoundError } from '@setpoint/foundation/errors';
import type { JobQueue } from '../../queue/job-queue.js';
import { approvalNeededAction } from '../alerts/alert-service.js';
import type { AuditService } from '../audit/audit-service.js';
import type { RecommendationRecord } from '../recommendations/recommendation-records.js';
import type { RecommendationService } from '../recommendations/recommendation-service.js';
import { recommendationIsLearning } from '../recommender/learning.js';
import type { ApplyGuard } from './applied-change-records.js';
import { approvedApplyJobKey } from './apply-jobs.js';
import type { Approval, ApprovalRepository } from './approval-repository.js';

/** The audit actions of approvals (`approval_needed`, what the alert of that name watches, is the alerts'). */
export const approvalGrantedAction = 'approval_granted';
export const approvalRejectedAction = 'approval_rejected';
export const approvalSupersededAction = 'approval_superseded';

/**
 * Whether a recommendation waits for a person before Setpoint writes it: in apply mode `approve-learning`,
 * a learning run that changes the cluster (a recommendation whose decision does not say is taken for one).
 */
export function waitsForApproval(
  mode: ApplyMode,
  recommendation: Pick<RecommendationRecord, 'phase' | 'decision'>,
): boolean {
  if (mode !== 'approve-learning' || recommendation.decision?.action === 'keep') return false;
  return recommendationIsLearning(recommendation) !== false;
}

const setpoint = 'setpoint';

export interface ApprovalFlowDependencies {
  approvals: ApprovalRepository;
  recommendations: Pick<RecommendationService, 'get' | 'latest'>;
  audit: Pick<AuditService, 'record'>;
  queue: Pick<JobQueue, 'enqueue'>;
  /** The project's auto-apply pause: it wins over an approval. */
  guard(projectId: string): Promise<Pick<ApplyGuard, 'paused' | 'pauseReason'>>;
  /** Whether Setpoint writes the project's cluster; where it does not, the launcher takes what was approved. */
  writes(projectId: string): Promise<boolean>;
}

/** The refusal of a decision on an approval that no longer waits, naming why. */
function notWaiting(approval: Approval | undefined, recommendationId: string, verb: string): ConflictError {
  if (!approval)
    return new ConflictError(
      'NOT_AWAITING_APPROVAL',
      `recommendation ${recommendationId} is not waiting for approval (only learning runs of a project in apply mode approve-learning do); apply it instead if it is wanted`,
    );
  const details = { state: approval.state, reason: approval.reason, decided_by: approval.decidedBy };
  if (approval.state === 'superseded')
    return new ConflictError(
      'APPROVAL_SUPERSEDED',
      `recommendation ${recommendationId} was superseded and is never applied late: ${approval.reason ?? 'a later run replaced it'}; ${verb} the project's newest recommendation instead`,
      { details },
    );
  if (approval.state === 'rejected')
    return new ConflictError(
      'APPROVAL_REJECTED',
      `recommendation ${recommendationId} was rejected by ${approval.decidedBy ?? 'someone'}; apply it by hand if it is wanted after all`,
      { details },
    );
  return new ConflictError(
    'ALREADY_APPROVED',
    `recommendation ${recommendationId} was approved by ${approval.decidedBy ?? 'someone'}; roll back if it is no longer wanted`,
    { details },
  );
}

/**
 * Approval of learning runs, inside the apply core. A recommendation that waits is asked for once (audited
 * `approval_needed`, which the alert of that name sends); a person approves it (queued as the core's
 * automatic apply, so it goes through the same lock, write-ahead intent, history and guard as any apply) or
 * rejects it; it is superseded, never applied late, when the project's next run starts before anyone
 * approved it or a newer recommendation replaces it. The auto-apply pause wins: approving while paused is
 * refused with the pause's reason.
 */
export function createApprovalFlow(deps: ApprovalFlowDependencies) {
  const { approvals } = deps;

  async function supersede(approval: Approval, reason: string, from: Approval['state'][] = ['waiting']) {
    const at = Date.now();
    if (
      !(await approvals.decide(approval.recommendationId, from, 'superseded', { at, by: setpoint, reason }))
    )
      return false;
    await deps.audit.record({
      entity: 'project',
      entityId: approval.projectId,
      action: approvalSupersededAction,
      actor: setpoint,
      detail: { recommendation_id: approval.recommendationId, reason },
    });
    return true;
  }

  /**
   * The newer recommendation that replaces `recommendation`, if there is one: the project's newest is the one
   * learned from its newest runs, whenever it was requested.
   */
  async function newerThan(recommendation: RecommendationRecord): Promise<RecommendationRecord | null> {
    const newest = await deps.recommendations.latest(recommendation.projectId).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
    return newest && newest.id !== recommendation.id ? newest : null;
  }

  /** A new recommendation is ready: one still waiting from before it is superseded by it. */
  async function replaceWaiting(recommendation: RecommendationRecord): Promise<void> {
    const waiting = await approvals.waiting(recommendation.projectId);
    if (waiting && waiting.recommendationId !== recommendation.id)
      await supersede(waiting, `replaced by recommendation ${recommendation.id}, made from a later run`);
  }

  /** Asks a person to approve a recommendation; audited once (`approval_needed`). */
  async function ask(recommendation: RecommendationRecord, platform: string): Promise<void> {
    await replaceWaiting(recommendation);
    const learningRun = recommendation.decision?.learning?.run ?? null;
    const asked = await approvals.ask({
      recommendationId: recommendation.id,
      projectId: recommendation.projectId,
      learningRun,
      at: Date.now(),
    });
    if (!asked) return;
    await deps.audit.record({
      entity: 'project',
      entityId: recommendation.projectId,
      action: approvalNeededAction,
      actor: setpoint,
      detail: {
        platform,
        recommendation_id: recommendation.id,
        learning_run: learningRun,
        explanation: recommendation.explanation,
      },
    });
  }

  /**
   * A run of the project finished: an approval that waited while it ran is superseded (the recommendation
   * was made for the run before it; the next one is made from this run).
   */
  async function runFinished(
    projectId: string,
    run: { label: string; startedAt: number | null },
  ): Promise<void> {
    const waiting = await approvals.waiting(projectId);
    if (!waiting || waiting.waitingSince >= (run.startedAt ?? Date.now())) return;
    await supersede(
      waiting,
      `${run.label} ran before anyone approved it; the next recommendation is made from that run`,
    );
  }

  /**
   * A person approves a waiting learning run: recorded, audited, and its write queued before the answer
   * (where Setpoint writes the project's cluster; elsewhere the next launch takes it).
   */
  async function approve(projectId: string, recommendationId: string, actor: string): Promise<Approval> {
    const recommendation = await deps.recommendations.get(projectId, recommendationId);
    const approval = await approvals.find(recommendationId);
    if (approval?.state === 'approved') return approval;
    if (approval?.state !== 'waiting') throw notWaiting(approval, recommendationId, 'approve');
    const newer = await newerThan(recommendation);
    if (newer) {
      await supersede(approval, `replaced by recommendation ${newer.id}, made from a later run`);
      throw notWaiting(await approvals.find(recommendationId), recommendationId, 'approve');
    }
    const guard = await deps.guard(projectId);
    if (guard.paused)
      throw new ConflictError(
        'AUTO_APPLY_PAUSED',
        `auto-apply is paused for project ${projectId} (${guard.pauseReason ?? 'paused'}); the approval is not recorded: resume auto-apply (setpoint recommendations resume ${projectId}) and approve again`,
        { details: { pause_reason: guard.pauseReason } },
      );
    const at = Date.now();
    if (!(await approvals.decide(recommendationId, ['waiting'], 'approved', { at, by: actor, reason: null })))
      throw notWaiting(await approvals.find(recommendationId), recommendationId, 'approve');
    await deps.audit.record({
      entity: 'project',
      entityId: projectId,
      action: approvalGrantedAction,
      actor,
      detail: { recommendation_id: recommendationId },
    });
    if (await deps.writes(projectId))
      await deps.queue.enqueue(
        'project.apply',
        { projectId, recommendationId, actor, kind: 'auto-apply', approvedAt: at },
        { idempotencyKey: approvedApplyJobKey(recommendationId) },
      );
    return (await approvals.find(recommendationId)) ?? approval;
  }

  /** A person rejects a waiting learning run: it is never written; audited with the note given. */
  async function reject(
    projectId: string,
    recommendationId: string,
    actor: string,
    reason: string | null,
  ): Promise<Approval> {
    await deps.recommendations.get(projectId, recommendationId);
    const approval = await approvals.find(recommendationId);
    if (approval?.state !== 'waiting') throw notWaiting(approval, recommendationId, 'reject');
    if (
      !(await approvals.decide(recommendationId, ['waiting'], 'rejected', {
        at: Date.now(),
        by: actor,
        reason,
      }))
    )
      throw notWaiting(await approvals.find(recommendationId), recommendationId, 'reject');
    await deps.audit.record({
      entity: 'project',
      entityId: projectId,
      action: approvalRejectedAction,
      actor,
      detail: { recommendation_id: recommendationId, reason },
    });
    return (await approvals.find(recommendationId)) ?? approval;
  }

  /**
   * Why an approved write, about to be written, is no longer wanted: its approval is gone, a newer
   * recommendation replaced it, or auto-apply was paused since (the approval is then superseded: it is
   * never written late); null when it is.
   */
  async function staleApproved(recommendation: RecommendationRecord): Promise<string | null> {
    const approval = await approvals.find(recommendation.id);
    if (approval?.state !== 'approved')
      return `its approval is ${approval?.state ?? 'missing'}${approval?.reason ? `: ${approval.reason}` : ''}`;
    const newer = await newerThan(recommendation);
    const guard = newer ? null : await deps.guard(recommendation.projectId);
    const reason = newer
      ? `replaced by recommendation ${newer.id}, made from a later run, before it was written`
      : guard?.paused
        ? `auto-apply was paused before it was written (${guard.pauseReason ?? 'paused'})`
        : null;
    if (reason) await supersede(approval, reason, ['approved']);
    return reason;
  }

  return { ask, replaceWaiting, runFinished, approve, reject, staleApproved };
}

export type ApprovalFlow = ReturnType<typeof createApprovalFlow>;
