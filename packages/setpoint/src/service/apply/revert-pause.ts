import type { AuditService } from '../audit/audit-service.js';

/** A project's auto-apply pause (the apply guard). */
export interface AutoApplyPause {
  paused: boolean;
  pauseReason: string | null;
}

/** Where the projects' auto-apply pause is kept. */
export interface AutoApplyPauseStore {
  saveGuard(projectId: string, values: AutoApplyPause): Promise<void>;
}

/** The audit actions of the pause: why auto-apply stopped, and who let it go on. */
export const autoApplyPausedAction = 'auto_apply_paused';
export const autoApplyResumedAction = 'auto_apply_resumed';

/** What the SLA guard reports when it undoes a change Setpoint made. */
export interface RevertReport {
  projectId: string;
  platform: string;
  /** Why the change is undone, e.g. "run 42 failed on the new configuration". */
  why: string;
}

/**
 * Setpoint's one rule after an SLA-guard revert, the same on every platform: auto-apply pauses until a
 * person resumes it, the pause's reason is shown with the project's applied configurations, and the audit
 * trail says when and why. The revert is reported before it is written, so a recommendation made
 * from the very run that failed is not applied while the revert runs. Returns the revert's reason.
 */
export async function pauseAutoApplyForRevert(
  deps: { store: AutoApplyPauseStore; audit: Pick<AuditService, 'record'> },
  report: RevertReport,
): Promise<string> {
  const reason = `reverted: ${report.why}`;
  await deps.store.saveGuard(report.projectId, { paused: true, pauseReason: reason });
  await deps.audit.record({
    entity: 'project',
    entityId: report.projectId,
    action: autoApplyPausedAction,
    actor: 'setpoint',
    detail: { platform: report.platform, cause: 'revert', reason },
  });
  return reason;
}

/**
 * A person rolled the project back: auto-apply pauses until someone resumes it, so the next recommendation
 * does not undo the rollback on its own; audited. Returns the pause's reason.
 */
export async function pauseAutoApplyForRollback(
  deps: { store: AutoApplyPauseStore; audit: Pick<AuditService, 'record'> },
  rollback: { projectId: string; platform: string; actor: string },
): Promise<string> {
  const reason = `rolled back by ${rollback.actor}; auto-apply waits until someone resumes it`;
  await deps.store.saveGuard(rollback.projectId, { paused: true, pauseReason: reason });
  await deps.audit.record({
    entity: 'project',
    entityId: rollback.projectId,
    action: autoApplyPausedAction,
    actor: rollback.actor,
    detail: { platform: rollback.platform, cause: 'rollback', reason },
  });
  return reason;
}

/** A person lets auto-apply go on after a pause (a revert's or an external change's); audited. */
export async function resumeAutoApply(
  deps: { store: AutoApplyPauseStore; audit: Pick<AuditService, 'record'> },
  resume: { projectId: string; platform: string; actor: string },
): Promise<void> {
  await deps.store.saveGuard(resume.projectId, { paused: false, pauseReason: null });
  await deps.audit.record({
    entity: 'project',
    entityId: resume.projectId,
    action: autoApplyResumedAction,
    actor: resume.actor,
    detail: { platform: resume.platform },
  });
}
