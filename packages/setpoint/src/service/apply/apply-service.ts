import { type ApprovalState, applyModeOf, type ExportFormat } from '@setpoint/api-contract';
import { ConflictError, NotFoundError } from '@setpoint/foundation/errors';
import type { Logger } from '../../logging/logger.js';
import type { JobPayloads, JobQueue } from '../../queue/job-queue.js';
import { externalChangeAction } from '../alerts/alert-service.js';
import type { AuditService } from '../audit/audit-service.js';
import { rollbackAuditEntry } from '../audit/rollback-audit.js';
import type { Project } from '../projects/project-records.js';
import type { ProjectService } from '../projects/project-service.js';
import type { RecommendationEvent } from '../recommendations/recommendation-events.js';
import type { RecommendationRecord } from '../recommendations/recommendation-records.js';
import type { RecommendationService } from '../recommendations/recommendation-service.js';
import { utcMinute } from '../runs/run-name.js';
import { type AppliedChange, isChange } from './applied-change-records.js';
import type { AppliedChangeRepository } from './applied-change-repository.js';
import type { ApplyIntentRepository } from './apply-intent-repository.js';
import { autoApplyJobKey, requestedApplyJobKey } from './apply-jobs.js';
import type { ApplyWriter, PlannedWrite, SettingChange, WriteLocation } from './apply-writer.js';
import { createApprovalFlow, waitsForApproval } from './approval-flow.js';
import type { Approval, ApprovalRepository } from './approval-repository.js';
import { type AutoApplyDecision, decideAutoApply } from './auto-apply-policy.js';
import type { ChangesInCode, CodeHandoff } from './changes-in-code.js';
import { leaveBadRunToLearning } from './learning-run-miss.js';
import { ApplyInProgressError, createProjectLocks, type ProjectLock, type WriteAt } from './project-lock.js';
import { type RevertIntent, type RevertTarget, revertChange, revertJobKey } from './revert-job.js';
import {
  pauseAutoApplyForRevert,
  pauseAutoApplyForRollback,
  resumeAutoApply as resumeAutoApplyOf,
} from './revert-pause.js';
import { rollbackTarget, standingChanges } from './standing-changes.js';

export interface ApplyServiceDependencies {
  changes: AppliedChangeRepository;
  intents: ApplyIntentRepository;
  /** Learning runs waiting for a person's approval (apply mode `approve-learning`). */
  approvals: ApprovalRepository;
  projects: Pick<ProjectService, 'get'>;
  recommendations: Pick<RecommendationService, 'get' | 'latest' | 'recordApplied' | 'apply'>;
  /** External changes, rollbacks, reverts, pauses and resumes are audited; alert rules watch them. */
  audit: Pick<AuditService, 'record'>;
  queue: Pick<JobQueue, 'enqueue'>;
  logger: Logger;
  /** The writer of the project's platform. */
  writerOf(project: Project): Promise<ApplyWriter>;
  /** The writer of a platform by name (to describe a recorded entry); undefined when none is registered. */
  writerNamed(platform: string): ApplyWriter | undefined;
  /** Automatic changes a project may get in seven days. */
  maxAutoChangesPerWeek: number;
  /** A run slower than this multiple of the SLA on a configuration Setpoint just wrote is reverted. */
  slaRevertFactor: number;
  /** How long a process writing a project may go silent before another takes its lock over. */
  leaseSeconds: number;
  /** Projects whose configuration lives in code: their changes become proposals there. */
  code?: ChangesInCode;
}

export interface ApplyResult {
  /** What was written and recorded; null when nothing was written (no history entry). */
  change: AppliedChange | null;
  /** The settings it changed. */
  changes: SettingChange[];
  /** Why a queued apply was not written (superseded, paused, stale); null when it was, or had nothing to write. */
  skipped: string | null;
}

/** An approval with its recommendation's explanation, as people see it. */
export type ExplainedApproval = Approval & { explanation: string | null };

/** A person's apply request: queued for the platform's API, or handed to the project's code (a proposal). */
export interface ApplyRequest {
  recommendation: RecommendationRecord;
  /** Null when the write was queued for the platform's API. */
  handedOff: CodeHandoff | null;
}

/** An apply as the queue carries it. */
export type QueuedApply = JobPayloads['project.apply'];

export interface RollbackResult {
  /** What the rollback recorded, oldest first (one entry per change undone where the platform undoes them one by one). */
  recorded: AppliedChange[];
  changes: SettingChange[];
  /** Why auto-apply is paused now (a person's rollback pauses it); null after the SLA guard's revert. */
  pauseReason: string | null;
}

/** A finished run on the project's cluster, as its platform reports it to the SLA guard. */
export interface FinishedRun {
  /** How people know it: "run 123", "step s-1ABC". */
  label: string;
  runtimeMinutes: number;
  failed: boolean;
  /** Why it failed, when the platform says. */
  failure?: string | undefined;
  /**
   * When it started, on Setpoint's clock: a run that started before the latest change ran on the earlier
   * configuration and says nothing about the new one. Null when the platform cannot tell.
   */
  startedAt: number | null;
}

type Located = WriteAt & { project: Project };

/**
 * The apply core: one history of what Setpoint wrote into each project's cluster, one guard (auto-apply
 * paused, the last configuration a run went well on), the auto-apply policy and its weekly cap, applying on
 * request or automatically, rolling back, the SLA guard's revert, resuming, exporting. A platform provides
 * only its `ApplyWriter`; nothing here names one.
 */
export function createApplyService(deps: ApplyServiceDependencies) {
  const { changes } = deps;
  const locks = createProjectLocks({
    intents: deps.intents,
    changes,
    recommendations: deps.recommendations,
    audit: deps.audit,
    logger: deps.logger,
    leaseMs: deps.leaseSeconds * 1000,
  });
  const approvals = createApprovalFlow({
    approvals: deps.approvals,
    recommendations: deps.recommendations,
    audit: deps.audit,
    queue: deps.queue,
    guard: (projectId) => changes.guard(projectId),
    writes: (projectId) => writes(projectId),
  });

  async function locate(project: Project): Promise<{ writer: ApplyWriter } & WriteLocation<unknown>> {
    const writer = await deps.writerOf(project);
    return { writer, ...(await writer.locate(project)) };
  }

  /** The project's write target, or the refusal saying why Setpoint does not write this project. */
  async function located(projectId: string): Promise<Located> {
    const project = await deps.projects.get(projectId);
    const found = await locate(project);
    if (found.refusal !== undefined) throw found.refusal;
    return {
      projectId,
      project,
      writer: found.writer,
      target: found.target,
      description: found.description,
    };
  }

  async function history(projectId: string): Promise<AppliedChange[]> {
    await deps.projects.get(projectId);
    return changes.history(projectId);
  }

  /** Records what someone changed outside Setpoint and pauses auto-apply; returns the fields changed. */
  async function noticeOutsideChange(at: Located, record: readonly AppliedChange[]): Promise<string[]> {
    const outside = await at.writer.changedOutside(at.target, {
      history: record,
      standing: standingChanges(record),
    });
    if (!outside || outside.fields.length === 0) return [];
    const { fields } = outside;
    if (outside.found)
      await changes.record({
        projectId: at.project.id,
        platform: at.writer.platform,
        recommendationId: null,
        kind: 'baseline',
        configuration: outside.found,
        undoes: null,
        actor: 'external',
        reason: `changed outside Setpoint: ${fields.join(', ')}`,
      });
    await changes.saveGuard(at.project.id, {
      paused: true,
      pauseReason: `the cluster was changed outside Setpoint (${fields.join(', ')})`,
    });
    await deps.audit.record({
      entity: 'project',
      entityId: at.project.id,
      action: externalChangeAction,
      actor: 'external',
      detail: { fields, auto_apply: 'paused' },
    });
    return fields;
  }

  /** The one place a platform's own check of a write runs: right before the write. */
  async function validateBeforeWrite(at: Located, planned: PlannedWrite): Promise<void> {
    await at.writer.validate?.(at.target, planned);
  }

  /**
   * Writes a planned write, noted first as intended (write-ahead), and records it; one the platform holds
   * already (an earlier try wrote it, unrecorded) is recorded without writing.
   */
  async function writeAndRecord(
    at: Located,
    lock: ProjectLock,
    planned: PlannedWrite,
    entry: { recommendationId: string | null; reason: string; alreadyHeld: boolean; last: boolean },
  ): Promise<AppliedChange> {
    await lock.stage(planned, entry.reason);
    if (!entry.alreadyHeld) {
      await validateBeforeWrite(at, planned);
      try {
        await at.writer.write(at.target, planned);
      } catch (error) {
        // a lost answer: the platform may hold the write all the same; if it cannot tell now, the intent
        // stays failed with its write staged, and the next holder of the lock looks again
        if (!(await at.writer.holds(at.target, planned).catch(() => false))) throw error;
        deps.logger.warn(
          { projectId: at.projectId, err: error },
          "the platform's answer to a write was lost; it holds the write, recorded as Setpoint's own",
        );
      }
    }
    return lock.record(planned, entry, entry.last);
  }

  /** Why a queued apply is no longer wanted, decided against the history as it is now; null when it is. */
  async function staleReason(
    payload: QueuedApply,
    recommendation: RecommendationRecord,
  ): Promise<string | null> {
    if (payload.kind === 'auto-apply' && payload.approvedAt !== undefined)
      return approvals.staleApproved(recommendation);
    if (payload.kind === 'auto-apply') {
      const project = await deps.projects.get(payload.projectId);
      if (waitsForApproval(applyModeOf(project.settings), recommendation))
        return "it is a learning run and waits for a person's approval (apply mode approve-learning)";
      const decision = await autoApplyDecision(payload.projectId);
      if (!decision.apply) return decision.reason;
      // the newest is the one learned from the newest runs, whenever it was requested
      const newest = await deps.recommendations.latest(payload.projectId);
      if (newest.id !== recommendation.id) return `superseded by recommendation ${newest.id}, made after it`;
      return null;
    }
    if (payload.requestedAt === undefined) return null;
    const since = (await changes.history(payload.projectId)).find(
      (entry) => entry.createdAt > (payload.requestedAt ?? 0) && entry.kind !== 'baseline',
    );
    return since
      ? `the cluster changed after this apply was asked for (${since.kind} by ${since.actor}); apply again if still wanted`
      : null;
  }

  /** The history's record of a queued apply, written by an earlier try of its job. */
  async function alreadyWritten(projectId: string, queued: QueuedApply): Promise<AppliedChange | undefined> {
    const since = queued.requestedAt ?? 0;
    return (await changes.history(projectId)).findLast(
      (entry) =>
        entry.recommendationId === queued.recommendationId &&
        entry.kind === queued.kind &&
        entry.createdAt >= since,
    );
  }

  async function applyLocked(
    at: Located,
    lock: ProjectLock,
    rec: RecommendationRecord,
    options: { actor: string; kind: 'apply' | 'auto-apply'; queued?: QueuedApply },
  ): Promise<ApplyResult> {
    const nothing = (skipped: string | null = null): ApplyResult => ({ change: null, changes: [], skipped });
    // An earlier try of this very apply wrote it before its process stopped or its answer was lost: found in
    // the platform and recorded (on taking the lock, or by the periodic pass), it is not written again.
    const earlier = options.queued
      ? await alreadyWritten(at.projectId, options.queued)
      : lock.recovered?.recommendationId === rec.id && lock.recovered.kind === options.kind
        ? lock.recovered
        : undefined;
    if (earlier) return { change: earlier, changes: [], skipped: null };
    if (options.queued) {
      const stale = await staleReason(options.queued, rec);
      if (stale) {
        await lock.skip(stale);
        return nothing(stale);
      }
    }
    if (options.kind === 'auto-apply') {
      const guard = await changes.guard(at.projectId);
      if (guard.paused)
        throw new ConflictError(
          'AUTO_APPLY_PAUSED',
          `auto-apply is paused for project ${at.projectId}: ${guard.pauseReason ?? 'paused'}`,
        );
    }
    // A recommendation to keep the cluster changes nothing: nothing is written, no history entry.
    if (rec.decision?.action === 'keep') return nothing();
    const changedOutside = await noticeOutsideChange(at, await changes.history(at.projectId));
    // an automatic write never overwrites a person's edit: auto-apply is paused
    if (changedOutside.length > 0 && options.kind === 'auto-apply')
      throw new ConflictError(
        'EXTERNAL_CHANGE',
        `${at.description} was changed outside Setpoint (${changedOutside.join(', ')}); auto-apply is paused until a user resumes it`,
      );
    const planned = await at.writer.planApply(
      at.target,
      { id: rec.id, configuration: rec.configuration ?? {} },
      at.project,
    );
    if (planned.changes.length === 0) return nothing();
    const explanation = rec.explanation ?? `recommendation ${rec.id}`;
    const change = await writeAndRecord(at, lock, planned, {
      recommendationId: rec.id,
      reason:
        options.queued?.approvedAt === undefined
          ? explanation
          : `learning run approved by ${options.actor}: ${explanation}`,
      alreadyHeld: false,
      last: true,
    });
    if (options.kind === 'auto-apply')
      await deps.recommendations.recordApplied(at.projectId, rec.id, options.actor);
    return { change, changes: planned.changes, skipped: null };
  }

  async function readyRecommendation(projectId: string, recommendationId: string) {
    const rec = await deps.recommendations.get(projectId, recommendationId);
    if (rec.state !== 'SUCCESS' || !rec.configuration)
      throw new ConflictError(
        'RECOMMENDATION_NOT_READY',
        `recommendation ${recommendationId} is ${rec.state}; only a SUCCESS recommendation can be applied`,
      );
    return rec;
  }

  /** Writes a recommendation into the project's cluster now, holding the project's lock. */
  async function apply(
    projectId: string,
    recommendationId: string,
    options: { actor: string; kind: 'apply' | 'auto-apply' },
  ): Promise<ApplyResult> {
    const rec = await readyRecommendation(projectId, recommendationId);
    const at = await located(projectId);
    return locks.withLock(at, { kind: options.kind, recommendationId, actor: options.actor }, (lock) =>
      applyLocked(at, lock, rec, options),
    );
  }

  /**
   * Back to an earlier entry of the history (default: the one before Setpoint's latest change still in
   * place), the caller holding the project's lock. An undo the platform already holds (an earlier try wrote
   * it, unrecorded) is recorded without writing and is not taken for an edit made outside Setpoint; a
   * revert never overwrites such an edit.
   */
  async function rollbackLocked(
    at: Located,
    lock: ProjectLock,
    options: { toConfigId?: string | undefined; actor: string; kind: 'rollback' | 'revert'; reason?: string },
  ): Promise<RollbackResult> {
    const { kind } = options;
    const record = await changes.history(at.projectId);
    const { to, undo } = rollbackTarget(at.projectId, record, options.toConfigId);
    const latestStanding = standingChanges(record).at(-1);
    const plans = await at.writer.planUndo(at.target, { to, undo, latest: record.at(-1) });
    const recorded: AppliedChange[] = [];
    const written: SettingChange[] = [];
    let checkedOutside = false;
    try {
      for (const [index, planned] of plans.entries()) {
        const alreadyHeld = await at.writer.holds(at.target, planned);
        if (!alreadyHeld && !checkedOutside) {
          checkedOutside = true;
          const changedOutside = await noticeOutsideChange(at, record);
          // an automatic revert never overwrites a person's edit
          if (changedOutside.length > 0 && kind === 'revert')
            throw new ConflictError(
              'EXTERNAL_CHANGE',
              `${at.description} was changed outside Setpoint (${changedOutside.join(', ')}); the revert is not written; roll back by hand if still wanted, auto-apply is paused until a user resumes it`,
            );
        }
        const reason =
          options.reason ??
          (planned.undoes
            ? `undid the change of ${utcMinute(planned.undoes.createdAt)}`
            : // shown under the kind's label ("Rolled back"), so it names only the target
              `to the configuration applied ${utcMinute(to?.createdAt ?? Date.now())}`);
        recorded.push(
          await writeAndRecord(at, lock, planned, {
            recommendationId: planned.undoes
              ? planned.undoes.recommendationId
              : (to?.recommendationId ?? null),
            reason,
            alreadyHeld,
            last: index === plans.length - 1,
          }),
        );
        written.push(...planned.changes);
      }
    } finally {
      // What was undone is audited even when a later undo is refused.
      if (recorded.length > 0)
        await deps.audit.record(
          rollbackAuditEntry({
            projectId: at.projectId,
            actor: options.actor,
            kind,
            platform: at.writer.platform,
            fromConfigId: latestStanding?.id ?? record.at(-1)?.id ?? null,
            toConfigId: to?.id ?? null,
            changes: written,
            reason: recorded.map((entry) => entry.reason).join('; '),
          }),
        );
    }
    return { recorded, changes: written, pauseReason: null };
  }

  /**
   * A person goes back to an earlier configuration (default: the newest before the one in place whose runs
   * met the SLA, the cold start if none did); auto-apply pauses until someone resumes it.
   */
  async function rollback(
    projectId: string,
    options: { toConfigId?: string | undefined; actor: string },
  ): Promise<RollbackResult> {
    const at = await located(projectId);
    const result = await locks.withLock(
      at,
      { kind: 'rollback', recommendationId: null, actor: options.actor },
      (lock) => rollbackLocked(at, lock, { ...options, kind: 'rollback' }),
    );
    if (result.recorded.length === 0) return result;
    const pauseReason = await pauseAutoApplyForRollback(
      { store: changes, audit: deps.audit },
      { projectId, platform: at.writer.platform, actor: options.actor },
    );
    return { ...result, pauseReason };
  }

  async function resumeAutoApply(projectId: string, actor: string): Promise<void> {
    const project = await deps.projects.get(projectId);
    const writer = await deps.writerOf(project);
    await resumeAutoApplyOf(
      { store: changes, audit: deps.audit },
      { projectId, platform: writer.platform, actor },
    );
  }

  /** Whether auto-apply may change the project's cluster now (settings, pause, window, weekly cap). */
  async function autoApplyDecision(projectId: string): Promise<AutoApplyDecision> {
    const project = await deps.projects.get(projectId);
    const guard = await changes.guard(projectId);
    return decideAutoApply({
      settings: project.settings,
      paused: guard.paused,
      pauseReason: guard.pauseReason,
      history: await changes.history(projectId),
      maxChangesPerWeek: deps.maxAutoChangesPerWeek,
      now: Date.now(),
    });
  }

  /** Whether Setpoint writes the project's cluster at all (linked, not transient). */
  async function writes(projectId: string): Promise<boolean> {
    return (await locate(await deps.projects.get(projectId))).refusal === undefined;
  }

  /**
   * A recommendation reached SUCCESS: one still waiting for approval from before it is superseded; in apply
   * mode `approve-learning` a learning run waits for a person (`approval_needed`); otherwise its apply is
   * queued when the project's auto-apply allows it.
   */
  async function recommendationReady(projectId: string, recommendationId: string): Promise<void> {
    const automatic = { actor: 'setpoint:auto-apply', automatic: true };
    if (await deps.code?.handOff(projectId, recommendationId, automatic)) return;
    const project = await deps.projects.get(projectId);
    const found = await locate(project);
    const recommendation = await deps.recommendations.get(projectId, recommendationId);
    await approvals.replaceWaiting(recommendation);
    // A learning run waits for a person also where the launcher takes the recommendation (a transient
    // cluster, a run submitted with its own cluster): the launcher reads what waits and launches without it.
    if (waitsForApproval(applyModeOf(project.settings), recommendation)) {
      await approvals.ask(recommendation, found.writer.platform);
      return;
    }
    if (found.refusal !== undefined) return;
    const decision = await autoApplyDecision(projectId);
    if (!decision.apply) {
      deps.logger.info(
        { projectId, recommendationId, reason: decision.reason },
        'recommendation not auto-applied',
      );
      return;
    }
    await deps.queue.enqueue(
      'project.apply',
      { projectId, recommendationId, actor: 'setpoint:auto-apply', kind: 'auto-apply' },
      { idempotencyKey: autoApplyJobKey(recommendationId) },
    );
  }

  /** A person asked to apply a recommendation: queue the write when Setpoint writes the project's cluster. */
  async function applyRequested(event: RecommendationEvent): Promise<void> {
    if (!(await writes(event.projectId))) return;
    await deps.queue.enqueue(
      'project.apply',
      {
        projectId: event.projectId,
        recommendationId: event.recommendationId,
        actor: event.actor,
        kind: 'apply',
        requestedAt: event.at,
      },
      { idempotencyKey: requestedApplyJobKey(event.recommendationId, event.at) },
    );
  }

  /**
   * A person asks to apply a recommendation: the request is recorded (and audited) and its write queued
   * before the answer, so an answered request is never lost; asking again queues nothing new. A project whose
   * configuration lives in code gets its proposal opened or updated instead (or the refusal saying why not).
   */
  async function request(projectId: string, recommendationId: string, actor: string): Promise<ApplyRequest> {
    const handedOff = await deps.code?.handOff(projectId, recommendationId, { actor, automatic: false });
    if (handedOff)
      return { recommendation: await deps.recommendations.get(projectId, recommendationId), handedOff };
    const rec = await deps.recommendations.apply(projectId, recommendationId, actor);
    if (rec.applyRequestedAt !== null)
      await applyRequested({
        type: 'recommendation.apply_requested',
        projectId,
        recommendationId,
        actor: rec.applyRequestedBy ?? actor,
        at: rec.applyRequestedAt,
      });
    return { recommendation: rec, handedOff: null };
  }

  /** Looks at a finished run under the project's lock; with another write in progress, without the outside-edit check. */
  async function guardRun(at: Located, project: Project, run: FinishedRun): Promise<void> {
    try {
      await locks.withLock(at, { kind: 'guard', recommendationId: null, actor: 'setpoint' }, () =>
        judgeRun(at, project, run, { checkOutside: true }),
      );
    } catch (error) {
      if (!(error instanceof ApplyInProgressError)) throw error;
      // the write in progress compares the cluster with the record itself
      await judgeRun(at, project, run, { checkOutside: false });
    }
  }

  async function judgeRun(
    at: Located,
    project: Project,
    run: FinishedRun,
    options: { checkOutside: boolean },
  ): Promise<void> {
    const projectId = at.projectId;
    const record = await changes.history(projectId);
    const changedOutside = options.checkOutside ? await noticeOutsideChange(at, record) : [];
    if (changedOutside.length > 0) {
      deps.logger.warn(
        { projectId, fields: changedOutside },
        'cluster changed outside Setpoint; auto-apply paused',
      );
      return;
    }
    const latest = record.at(-1);
    if (!latest) return;
    if (run.startedAt !== null && run.startedAt < latest.createdAt) return;
    const sla = project.settings.slaMinutes;
    const badlyLate = sla !== null && run.runtimeMinutes > sla * deps.slaRevertFactor;
    if (isChange(latest) && (run.failed || badlyLate)) {
      const why = run.failed
        ? `${run.label} failed on the new configuration${run.failure ? ` (${run.failure})` : ''}`
        : `${run.label} took ${run.runtimeMinutes.toFixed(1)} min, over ${deps.slaRevertFactor}× the ${sla} min SLA`;
      const report = { projectId, platform: at.writer.platform, why };
      const leftToLearning = await leaveBadRunToLearning(
        { recommendations: deps.recommendations, audit: deps.audit },
        { ...report, change: latest, autoApply: () => autoApplyDecision(projectId) },
      );
      if (leftToLearning) {
        deps.logger.info(
          { projectId, run: run.label },
          'a learning run failed or badly missed the SLA: the next recommendation moves on from it',
        );
        return;
      }
      const guard = await changes.guard(projectId);
      // reported first: auto-apply pauses before the revert is written
      const reason = await pauseAutoApplyForRevert({ store: changes, audit: deps.audit }, report);
      // The intent is a queued job, not a write inside the run's collection: the run is already stored, so a
      // retried collection returns early and a write that failed here would never be tried again.
      const intent: RevertIntent = {
        projectId,
        configId: latest.id,
        toConfigId: guard.lastGoodChangeId ?? record.at(-2)?.id,
        reason,
      };
      await deps.queue.enqueue('project.revert', intent, {
        idempotencyKey: revertJobKey('project.revert', latest.id),
      });
      deps.logger.warn({ projectId, run: run.label }, 'reverting a configuration after a bad run');
      return;
    }
    // the configuration met the SLA: a rollback or a revert may go back to it
    if (!run.failed && (sla === null || run.runtimeMinutes <= sla)) {
      await changes.markMetSla(latest.id, Date.now());
      await changes.saveGuard(projectId, { lastGoodChangeId: latest.id });
    }
  }

  /**
   * The SLA guard, after each run on the project's cluster: an edit made outside Setpoint pauses auto-apply;
   * a change Setpoint just made that failed the run or badly missed the SLA is undone (auto-apply pauses),
   * unless it was an auto-applied learning run the next recommendation moves on from
   * (`leaveBadRunToLearning`); a run that did not fail marks the configuration as the last good one.
   */
  async function runFinished(projectId: string, run: FinishedRun): Promise<void> {
    await approvals.runFinished(projectId, run);
    const project = await deps.projects.get(projectId);
    const found = await locate(project);
    if (found.refusal !== undefined) return;
    await guardRun(
      { projectId, project, writer: found.writer, target: found.target, description: found.description },
      project,
      run,
    );
  }

  /** The queued apply: decided again, under the project's lock, against the history as it is now. */
  async function applyJob(payload: QueuedApply): Promise<void> {
    const rec = await readyRecommendation(payload.projectId, payload.recommendationId);
    const at = await located(payload.projectId);
    await locks.withLock(
      at,
      { kind: payload.kind, recommendationId: payload.recommendationId, actor: payload.actor },
      (lock) => applyLocked(at, lock, rec, { actor: payload.actor, kind: payload.kind, queued: payload }),
    );
  }

  /** The queued SLA-guard revert, decided under the project's lock. */
  async function revertJob(intent: RevertIntent): Promise<void> {
    const at = await located(intent.projectId);
    await locks.withLock(at, { kind: 'revert', recommendationId: null, actor: 'setpoint' }, (lock) => {
      const target: RevertTarget = {
        standing: async (projectId) => standingChanges(await changes.history(projectId)),
        undo: ({ toConfigId, reason }) =>
          rollbackLocked(at, lock, { toConfigId, actor: 'setpoint', kind: 'revert', reason }),
      };
      return revertChange(target, intent);
    });
  }

  /**
   * Finds writes whose process stopped mid-way (their intent's lease ran out) and settles them: recorded as
   * Setpoint's own when the platform holds them, otherwise abandoned and audited. Run at start and
   * periodically, so a stopped write is found without waiting for its project's next apply or run.
   */
  async function settleStoppedWrites(): Promise<number> {
    let settled = 0;
    for (const left of await deps.intents.lapsed()) {
      try {
        const project = await deps.projects.get(left.projectId).catch((error: unknown) => {
          if (error instanceof NotFoundError) return undefined;
          throw error;
        });
        const found = project ? await locate(project) : undefined;
        if (!found || found.refusal !== undefined) {
          // nothing left to ask (the project is gone or no longer linked): what it wrote cannot be known
          if (await deps.intents.takeOver(left.id, deps.leaseSeconds * 1000))
            await deps.intents.close(left.id, 'abandoned', 'its project is no longer written by Setpoint');
          continue;
        }
        const at: WriteAt = {
          projectId: left.projectId,
          writer: found.writer,
          target: found.target,
          description: found.description,
        };
        await locks.settleStopped(at, left);
        settled += 1;
      } catch (error) {
        // tried again by the next pass, or by the project's next write
        deps.logger.error({ err: error, projectId: left.projectId }, 'settling a stopped write failed');
      }
    }
    return settled;
  }

  /** A recommendation (default: the latest successful one) as the file a team keeps. */
  async function exportRecommendation(
    projectId: string,
    options: { format?: ExportFormat | undefined; recommendationId?: string | undefined },
  ): Promise<{ format: ExportFormat; text: string }> {
    const project = await deps.projects.get(projectId);
    const rec = options.recommendationId
      ? await deps.recommendations.get(projectId, options.recommendationId)
      : await deps.recommendations.latest(projectId);
    if (rec.state !== 'SUCCESS' || !rec.configuration)
      throw new ConflictError(
        'RECOMMENDATION_NOT_READY',
        `recommendation ${rec.id} is ${rec.state}; only a SUCCESS recommendation can be exported`,
      );
    const writer = await deps.writerOf(project);
    const format = options.format ?? writer.defaultExportFormat;
    return { format, text: await writer.export(project, rec, format) };
  }

  /** A recorded entry as its platform describes it (the wire form and one line). */
  function describe(change: AppliedChange): { cluster: Record<string, unknown>; summary: string } {
    return (
      deps.writerNamed(change.platform)?.describe(change.configuration) ?? {
        cluster: change.configuration,
        summary: '',
      }
    );
  }

  /** The configuration a platform found when a project was linked to its cluster (`baseline`). */
  async function recordBaseline(input: {
    projectId: string;
    platform: string;
    configuration: Record<string, unknown>;
    actor: string;
    reason: string;
  }): Promise<AppliedChange> {
    return changes.record({ ...input, recommendationId: null, kind: 'baseline', undoes: null });
  }

  /** An approval with the recommendation's explanation, for the person deciding. */
  async function explained(approval: Approval): Promise<ExplainedApproval> {
    const recommendation = await deps.recommendations
      .get(approval.projectId, approval.recommendationId)
      .catch((error: unknown) => {
        if (error instanceof NotFoundError) return null;
        throw error;
      });
    return { ...approval, explanation: recommendation?.explanation ?? null };
  }

  /** Approvals in a state (default: what waits for a person now), newest first. */
  async function listApprovals(query: {
    state: ApprovalState;
    projectId?: string | undefined;
    limit: number;
  }): Promise<ExplainedApproval[]> {
    if (query.projectId !== undefined) await deps.projects.get(query.projectId);
    return Promise.all((await deps.approvals.list(query)).map(explained));
  }

  /** What waits for approval in each of these projects. */
  async function awaitingApproval(projectIds: readonly string[]): Promise<Map<string, ExplainedApproval>> {
    const waiting = await deps.approvals.waitingOf(projectIds);
    const entries = await Promise.all(
      [...waiting].map(async ([projectId, approval]) => [projectId, await explained(approval)] as const),
    );
    return new Map(entries);
  }

  /**
   * A change made in the project's code (a merged proposal) that its platform now runs: recorded in the
   * history like a write of Setpoint's, once (`configuration` is the platform's own record of the cluster).
   */
  async function recordDeployed(input: {
    projectId: string;
    recommendationId: string;
    kind: 'apply' | 'auto-apply';
    configuration: Record<string, unknown>;
    actor: string;
    reason: string;
    /** When the change was proposed: an entry for the recommendation since then is this one, recorded already. */
    since: number;
  }): Promise<AppliedChange> {
    const { since, ...entry } = input;
    const recorded = (await changes.history(input.projectId)).findLast(
      (change) => change.recommendationId === input.recommendationId && change.createdAt >= since,
    );
    if (recorded) return recorded;
    const writer = await deps.writerOf(await deps.projects.get(input.projectId));
    return changes.record({ ...entry, platform: writer.platform, undoes: null });
  }

  /**
   * A cluster its launcher started with one of the project's recommendations (the launcher took the
   * recommendation; the platform found Setpoint's recommendation tag on the cluster): recorded in the history
   * as that recommendation applied (`apply`, by the launcher, with the cluster it launched), and the
   * recommendation marked applied. Once: a launch of the cluster already in place (the next launch of the same
   * configuration, another step of the same cluster, a collection retried, two at the same time) adds no entry.
   * A launch that is not what was recommended is recorded as launched, saying how it differs. A tag naming
   * no recommendation of the project records nothing (null).
   */
  async function recordLaunch(input: {
    projectId: string;
    recommendationId: string;
    /** The platform's record of the cluster launched (what `describe` reads). */
    configuration: Record<string, unknown>;
    actor: string;
    /** How the launched cluster differs from the recommended configuration, one line per setting; none when it is as recommended. */
    differences(recommended: Record<string, unknown> | null): string[];
  }): Promise<AppliedChange | null> {
    const recommendation = await deps.recommendations
      .get(input.projectId, input.recommendationId)
      .catch((error: unknown) => {
        if (error instanceof NotFoundError) return null;
        throw error;
      });
    if (!recommendation) {
      deps.logger.warn(
        { projectId: input.projectId, recommendationId: input.recommendationId },
        'a launched cluster names a recommendation the project does not have; not recorded as applied',
      );
      return null;
    }
    const writer = await deps.writerOf(await deps.projects.get(input.projectId));
    const launched = writer.describe(input.configuration).summary;
    const newest = (await changes.history(input.projectId)).at(-1);
    await deps.recommendations.recordApplied(
      input.projectId,
      input.recommendationId,
      input.actor,
      'launched',
    );
    if (newest && describe(newest).summary === launched) return newest;
    const explanation = recommendation.explanation ?? `recommendation ${recommendation.id}`;
    const differences = input.differences(recommendation.configuration);
    return changes.record(
      {
        projectId: input.projectId,
        platform: writer.platform,
        recommendationId: recommendation.id,
        kind: 'apply',
        configuration: input.configuration,
        undoes: null,
        actor: input.actor,
        reason:
          differences.length === 0
            ? `launched as recommended: ${explanation}`
            : `launched differently from the recommendation (${differences.join('; ')}): ${explanation}`,
      },
      { once: `launch after ${newest?.id ?? 'none'}: ${launched}` },
    );
  }

  return {
    apply,
    approve: async (projectId: string, recommendationId: string, actor: string) =>
      explained(await approvals.approve(projectId, recommendationId, actor)),
    reject: async (projectId: string, recommendationId: string, actor: string, reason: string | null) =>
      explained(await approvals.reject(projectId, recommendationId, actor, reason)),
    listApprovals,
    awaitingApproval,
    rollback,
    history,
    guard: async (projectId: string) => {
      await deps.projects.get(projectId);
      return changes.guard(projectId);
    },
    standing: async (projectId: string) => standingChanges(await history(projectId)),
    resumeAutoApply,
    autoApplyDecision,
    recommendationReady,
    request,
    runFinished,
    applyJob,
    revertJob,
    exportRecommendation,
    describe,
    recordBaseline,
    recordDeployed,
    recordLaunch,
    writes,
    settleStoppedWrites,
  };
}

export type ApplyService = ReturnType<typeof createApplyService>;
