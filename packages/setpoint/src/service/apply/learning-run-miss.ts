import type { AuditService } from '../audit/audit-service.js';
import type { RecommendationService } from '../recommendations/recommendation-service.js';
import { risksSlaByDesign } from '../recommender/learning.js';
import type { AutoApplyDecision } from './auto-apply-policy.js';
import type { RevertReport } from './revert-pause.js';

/** The audit action of a bad learning run left to the learning phase (no revert, no pause). */
export const learningRunMissedAction = 'learning_run_missed';

/** A change Setpoint made, as each platform's apply history records it. */
export interface AppliedLearningChange {
  kind: string;
  recommendationId: string | null;
}

/**
 * The SLA guard's one exception, the same on every platform. A run that failed or badly missed the SLA on
 * a change auto-applied from a learning run after the first recommendation is the learning phase's
 * budgeted price, not a surprise: when auto-apply may write the next recommendation now, the guard neither
 * reverts nor pauses. That recommendation is made from this very run, and the optimizer never keeps a
 * configuration that failed or missed the SLA, so the job moves on within one run, and the misses count
 * against the project's learning budget. Otherwise (a person applied it, auto-apply is off, paused, outside
 * its window or at its weekly cap) the guard reverts and pauses as always, and the pause is audited there.
 * A bad run left to learning is audited here (`learning_run_missed`); returns whether it was.
 */
export async function leaveBadRunToLearning(
  deps: {
    recommendations: Pick<RecommendationService, 'get'>;
    audit: Pick<AuditService, 'record'>;
  },
  input: RevertReport & {
    change: AppliedLearningChange;
    /** Whether auto-apply may write the project's next recommendation now. */
    autoApply: () => Promise<AutoApplyDecision>;
  },
): Promise<boolean> {
  const { change, projectId } = input;
  if (change.kind !== 'auto-apply' || change.recommendationId === null) return false;
  const recommendation = await deps.recommendations.get(projectId, change.recommendationId);
  if (!risksSlaByDesign(recommendation)) return false;
  if (!(await input.autoApply()).apply) return false;
  await deps.audit.record({
    entity: 'project',
    entityId: projectId,
    action: learningRunMissedAction,
    actor: 'setpoint',
    detail: {
      platform: input.platform,
      recommendation_id: change.recommendationId,
      reason: `${input.why} (a learning run: the next recommendation moves on from it; auto-apply stays on)`,
    },
  });
  return true;
}
