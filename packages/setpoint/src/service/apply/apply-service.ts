import type { ExportFormat } from '@setpoint/api-contract';
import { ConflictError } from '@setpoint/foundation/errors';
import type { Logger } from '../../logging/logger.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { externalChangeAction } from '../alerts/alert-service.js';
import type { AuditService } from '../audit/audit-service.js';
import { rollbackAuditEntry } from '../audit/rollback-audit.js';
import type { Project } from '../projects/project-records.js';
import type { ProjectService } from '../projects/project-service.js';
import type { RecommendationEvent } from '../recommendations/recommendation-events.js';
import type { RecommendationService } from '../recommendations/recommendation-service.js';
import { type AppliedChange, type AppliedChangeKind, isChange } from './applied-change-records.js';
import type { AppliedChangeRepository } from './applied-change-repository.js';
import { autoApplyJobKey, requestedApplyJobKey } from './apply-jobs.js';
import type { ApplyWriter, PlannedWrite, SettingChange, WriteLocation } from './apply-writer.js';
import { type AutoApplyDecision, decideAutoApply } from './auto-apply-policy.js';
import { leaveBadRunToLearning } from './learning-run-miss.js';
import { type RevertIntent, type RevertTarget, revertChange, revertJobKey } from './revert-job.js';
import { pauseAutoApplyForRevert, resumeAutoApply as resumeAutoApplyOf } from './revert-pause.js';
import { rollbackTarget, standingChanges } from './standing-changes.js';

export interface ApplyServiceDependencies {
  changes: AppliedChangeRepository;
  projects: Pick<ProjectService, 'get'>;
  recommendations: Pick<RecommendationService, 'get' | 'latest' | 'recordAutoApplied'>;
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
}

export interface ApplyResult {
  /** What was written and recorded; null when the platform already holds it (nothing written, no history). */
  change: AppliedChange | null;
  /** The settings it changed. */
  changes: SettingChange[];
}

export interface RollbackResult {
  /** What the rollback recorded, oldest first (one entry per change undone where the platform undoes them one by one). */
  recorded: AppliedChange[];
  changes: SettingChange[];
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

type Located = { project: Project; writer: ApplyWriter; target: unknown; description: string };

/**
 * The apply core: one history of what Setpoint wrote into each project's cluster, one guard (auto-apply
 * paused, the last configuration a run went well on), the auto-apply policy and its weekly cap, applying on
 * request or automatically, rolling back, the SLA guard's revert, resuming, exporting. A platform provides
 * only its `ApplyWriter`; nothing here names one.
 */
export function createApplyService(deps: ApplyServiceDependencies) {
  const { changes } = deps;

  async function locate(project: Project): Promise<{ writer: ApplyWriter } & WriteLocation<unknown>> {
    const writer = await deps.writerOf(project);
    return { writer, ...(await writer.locate(project)) };
  }

  /** The project's write target, or the refusal saying why Setpoint does not write this project. */
  async function located(projectId: string): Promise<Located> {
    const project = await deps.projects.get(projectId);
    const found = await locate(project);
    if (found.refusal !== undefined) throw found.refusal;
    return { project, writer: found.writer, target: found.target, description: found.description };
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

  async function writeAndRecord(
    at: Located,
    planned: PlannedWrite,
    entry: {
      kind: AppliedChangeKind;
      recommendationId: string | null;
      actor: string;
      reason: string;
      alreadyHeld: boolean;
    },
  ): Promise<AppliedChange> {
    if (!entry.alreadyHeld) {
      await validateBeforeWrite(at, planned);
      await at.writer.write(at.target, planned);
    }
    return changes.record({
      projectId: at.project.id,
      platform: at.writer.platform,
      recommendationId: entry.recommendationId,
      kind: entry.kind,
      configuration: planned.configuration,
      undoes: planned.undoes?.id ?? null,
      actor: entry.actor,
      reason: entry.reason,
    });
  }

  async function apply(
    projectId: string,
    recommendationId: string,
    options: { actor: string; kind: 'apply' | 'auto-apply' },
  ): Promise<ApplyResult> {
    const rec = await deps.recommendations.get(projectId, recommendationId);
    if (rec.state !== 'SUCCESS' || !rec.configuration)
      throw new ConflictError(
        'RECOMMENDATION_NOT_READY',
        `recommendation ${recommendationId} is ${rec.state}; only a SUCCESS recommendation can be applied`,
      );
    const at = await located(projectId);
    if (options.kind === 'auto-apply') {
      const guard = await changes.guard(projectId);
      if (guard.paused)
        throw new ConflictError(
          'AUTO_APPLY_PAUSED',
          `auto-apply is paused for project ${projectId}: ${guard.pauseReason ?? 'paused'}`,
        );
    }
    // A recommendation to keep the cluster changes nothing: nothing is written, no history entry.
    if (rec.decision?.action === 'keep') return { change: null, changes: [] };
    const changedOutside = await noticeOutsideChange(at, await changes.history(projectId));
    // an automatic write never overwrites a person's edit: auto-apply is paused
    if (changedOutside.length > 0 && options.kind === 'auto-apply')
      throw new ConflictError(
        'EXTERNAL_CHANGE',
        `${at.description} was changed outside Setpoint (${changedOutside.join(', ')}); auto-apply is paused until a user resumes it`,
      );
    const planned = await at.writer.planApply(
      at.target,
      { id: rec.id, configuration: rec.configuration },
      at.project,
    );
    if (planned.changes.length === 0) return { change: null, changes: [] };
    const change = await writeAndRecord(at, planned, {
      kind: options.kind,
      recommendationId,
      actor: options.actor,
      reason: rec.explanation ?? `recommendation ${recommendationId}`,
      alreadyHeld: false,
    });
    if (options.kind === 'auto-apply')
      await deps.recommendations.recordAutoApplied(projectId, recommendationId, options.actor);
    return { change, changes: planned.changes };
  }

  /**
   * Back to an earlier entry of the history (default: the one before Setpoint's latest change still in
   * place). An undo the platform already holds (an earlier try wrote it, unrecorded) is recorded without
   * writing and is not taken for an edit made outside Setpoint; a revert never overwrites such an edit.
   */
  async function rollback(
    projectId: string,
    options: {
      toConfigId?: string | undefined;
      actor: string;
      kind?: 'rollback' | 'revert';
      reason?: string;
    },
  ): Promise<RollbackResult> {
    const at = await located(projectId);
    const kind = options.kind ?? 'rollback';
    const record = await changes.history(projectId);
    const { to, undo } = rollbackTarget(projectId, record, options.toConfigId);
    const latestStanding = standingChanges(record).at(-1);
    const plans = await at.writer.planUndo(at.target, { to, undo, latest: record.at(-1) });
    const recorded: AppliedChange[] = [];
    const written: SettingChange[] = [];
    let checkedOutside = false;
    try {
      for (const planned of plans) {
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
            ? `undid the change of ${new Date(planned.undoes.createdAt).toISOString()}`
            : // shown under the kind's label ("Rolled back"), so it names only the target
              `to the configuration of ${new Date(to?.createdAt ?? Date.now()).toISOString()}`);
        recorded.push(
          await writeAndRecord(at, planned, {
            kind,
            recommendationId: planned.undoes
              ? planned.undoes.recommendationId
              : (to?.recommendationId ?? null),
            actor: options.actor,
            reason,
            alreadyHeld,
          }),
        );
        written.push(...planned.changes);
      }
    } finally {
      // What was undone is audited even when a later undo is refused.
      if (recorded.length > 0)
        await deps.audit.record(
          rollbackAuditEntry({
            projectId,
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
    return { recorded, changes: written };
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

  /** A recommendation reached SUCCESS: queue its apply when the project's auto-apply allows it. */
  async function recommendationReady(projectId: string, recommendationId: string): Promise<void> {
    if (!(await writes(projectId))) return;
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
      },
      { idempotencyKey: requestedApplyJobKey(event.recommendationId, event.at) },
    );
  }

  /**
   * The SLA guard, after each run on the project's cluster: an edit made outside Setpoint pauses auto-apply;
   * a change Setpoint just made that failed the run or badly missed the SLA is undone (auto-apply pauses),
   * unless it was an auto-applied learning run the next recommendation moves on from
   * (`leaveBadRunToLearning`); a run that did not fail marks the configuration as the last good one.
   */
  async function runFinished(projectId: string, run: FinishedRun): Promise<void> {
    const project = await deps.projects.get(projectId);
    const found = await locate(project);
    if (found.refusal !== undefined) return;
    const at: Located = {
      project,
      writer: found.writer,
      target: found.target,
      description: found.description,
    };
    const record = await changes.history(projectId);
    const changedOutside = await noticeOutsideChange(at, record);
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
    if (!run.failed) await changes.saveGuard(projectId, { lastGoodChangeId: latest.id });
  }

  /** What the revert job undoes with: the changes in place, and a revert to the chosen configuration. */
  const revertTarget: RevertTarget = {
    standing: async (projectId) => standingChanges(await changes.history(projectId)),
    undo: ({ projectId, toConfigId, reason }) =>
      rollback(projectId, { toConfigId, actor: 'setpoint', kind: 'revert', reason }),
  };

  /** A project's applies in this process run one after another, so each sees the history the one before wrote. */
  const applying = new Map<string, Promise<unknown>>();
  async function oneAtATime(projectId: string, work: () => Promise<void>): Promise<void> {
    const before = applying.get(projectId) ?? Promise.resolve();
    const mine = before.catch(() => undefined).then(work);
    applying.set(projectId, mine);
    try {
      await mine;
    } finally {
      if (applying.get(projectId) === mine) applying.delete(projectId);
    }
  }

  /** The queued apply: the policy is decided again (several may be ready before the first runs). */
  async function applyJob(payload: {
    projectId: string;
    recommendationId: string;
    actor: string;
    kind: 'apply' | 'auto-apply';
  }): Promise<void> {
    await oneAtATime(payload.projectId, async () => {
      if (payload.kind === 'auto-apply') {
        const decision = await autoApplyDecision(payload.projectId);
        if (!decision.apply) {
          deps.logger.info({ ...payload, reason: decision.reason }, 'recommendation not auto-applied');
          return;
        }
      }
      await apply(payload.projectId, payload.recommendationId, { actor: payload.actor, kind: payload.kind });
    });
  }

  /** The queued SLA-guard revert. */
  async function revertJob(intent: RevertIntent): Promise<void> {
    await oneAtATime(intent.projectId, () => revertChange(revertTarget, intent));
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

  return {
    apply,
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
    applyRequested,
    runFinished,
    applyJob,
    revertJob,
    exportRecommendation,
    describe,
    recordBaseline,
  };
}

export type ApplyService = ReturnType<typeof createApplyService>;
