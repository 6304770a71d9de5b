import { AppError } from '@setpoint/foundation/errors';
import type { Logger } from '../../logging/logger.js';
import type { AuditService } from '../audit/audit-service.js';
import { oneAtATimeByKey } from '../one-at-a-time.js';
import type { RecommendationService } from '../recommendations/recommendation-service.js';
import type { AppliedChange, ApplyIntent, NewApplyIntent } from './applied-change-records.js';
import type { AppliedChangeRepository } from './applied-change-repository.js';
import type { ApplyIntentRepository } from './apply-intent-repository.js';
import type { ApplyWriter, PlannedWrite } from './apply-writer.js';

/** Where the project's writes go: its platform's writer and the target it located. */
export interface WriteAt {
  projectId: string;
  writer: ApplyWriter;
  target: unknown;
  description: string;
}

/** The audit action of an apply that was not written, with why (superseded, paused, stale). */
export const applySkippedAction = 'apply_skipped';
/** The audit action of a write Setpoint found its own after its process stopped or its answer was lost. */
export const applyRecoveredAction = 'apply_recovered';
/** The audit action of a write whose process stopped before the platform held it. */
export const applyAbandonedAction = 'apply_abandoned';

/** What the holder of a project's lock records, each write noted before it is made. */
export interface ProjectLock {
  readonly intent: ApplyIntent;
  /** What a process that stopped mid-write had written, found and recorded when the lock was taken. */
  readonly recovered: AppliedChange | null;
  /** Write-ahead: the write about to be made, as the history will record it. */
  stage(planned: PlannedWrite, reason: string): Promise<void>;
  /** Records a write made (or found already made), the intent's last one when `last`. */
  record(planned: PlannedWrite, entry: RecordedEntry, last: boolean): Promise<AppliedChange>;
  /** Ends the intent without writing, with the reason recorded and audited. */
  skip(reason: string): Promise<void>;
}

export interface RecordedEntry {
  recommendationId: string | null;
  reason: string;
}

/** Another process is writing into the project's cluster: asked again, it is free. */
export class ApplyInProgressError extends AppError {
  constructor(projectId: string, intent: ApplyIntent) {
    super(
      'rate_limited',
      'APPLY_IN_PROGRESS',
      `another change to project ${projectId} is being written (${intent.kind} by ${intent.actor}); try again in a moment`,
      { details: { retry_after_seconds: Math.max(1, Math.ceil((intent.leaseUntil - Date.now()) / 1000)) } },
    );
  }
}

/**
 * One write into a project's cluster at a time, across processes and on both databases: the lock is the
 * project's one pending apply intent. A pending intent past its lease was left by a process that stopped;
 * whoever takes the lock next asks the platform whether that write landed. If it did, it is recorded as
 * Setpoint's own (not taken for an edit made outside Setpoint); if not, the intent is abandoned.
 */
export function createProjectLocks(deps: {
  intents: ApplyIntentRepository;
  changes: AppliedChangeRepository;
  recommendations: Pick<RecommendationService, 'recordApplied'>;
  audit: Pick<AuditService, 'record'>;
  logger: Logger;
  /** How long a holder may go silent before its lock is taken over (it renews it while it works). */
  leaseMs: number;
}) {
  const { intents, changes } = deps;

  /**
   * A write a try staged and never recorded, because its process stopped (`stopped`: the intent was still
   * pending) or its answer was lost (`failed`): recorded as Setpoint's own when the platform holds it;
   * otherwise a stopped one is abandoned, visibly.
   */
  async function settle(
    at: WriteAt,
    left: ApplyIntent,
    how: 'stopped' | 'failed',
  ): Promise<AppliedChange | null> {
    const planned: PlannedWrite | null = left.configuration
      ? { configuration: left.configuration, changes: [], undoes: null }
      : null;
    if (!planned || left.kind === 'guard' || !(await at.writer.holds(at.target, planned))) {
      if (how === 'failed') return null;
      await intents.close(
        left.id,
        'abandoned',
        planned
          ? 'the process writing it stopped before the platform held it'
          : 'the process stopped before it planned a write',
      );
      if (planned && left.kind !== 'guard') await reportAbandoned(left);
      return null;
    }
    const change = await changes.record(
      {
        projectId: left.projectId,
        platform: left.platform,
        recommendationId: left.recommendationId,
        kind: left.kind,
        configuration: planned.configuration,
        undoes: left.undoes,
        actor: left.actor,
        reason: left.reason ?? `recommendation ${left.recommendationId ?? 'unknown'}`,
      },
      { intent: { id: left.id, last: true } },
    );
    if (left.kind === 'auto-apply' && left.recommendationId)
      await deps.recommendations.recordApplied(left.projectId, left.recommendationId, left.actor);
    const why =
      how === 'stopped'
        ? `the ${left.kind} by ${left.actor} was written before its process stopped; recorded as Setpoint's own`
        : `the ${left.kind} by ${left.actor} was written though its answer was lost; recorded as Setpoint's own`;
    await deps.audit.record({
      entity: 'project',
      entityId: left.projectId,
      action: applyRecoveredAction,
      actor: 'setpoint',
      detail: {
        platform: left.platform,
        kind: left.kind,
        recommendation_id: left.recommendationId,
        change_id: change.id,
        reason: why,
      },
    });
    deps.logger.warn({ projectId: left.projectId, intentId: left.id, changeId: change.id }, why);
    return change;
  }

  /** A write that may have been under way when its process stopped, not in the platform: reported. */
  async function reportAbandoned(left: ApplyIntent): Promise<void> {
    const reason = `the ${left.kind} by ${left.actor} was not written: its process stopped first${
      left.kind === 'apply' || left.kind === 'auto-apply' ? ' (a queued apply is tried again)' : ''
    }`;
    await deps.audit.record({
      entity: 'project',
      entityId: left.projectId,
      action: applyAbandonedAction,
      actor: 'setpoint',
      detail: {
        platform: left.platform,
        kind: left.kind,
        recommendation_id: left.recommendationId,
        requested_by: left.actor,
        reason,
      },
    });
    deps.logger.warn({ projectId: left.projectId, intentId: left.id }, reason);
  }

  /** The project's last failed write, when nothing was recorded since: found in the platform, it is recorded. */
  async function settleLostAnswer(at: WriteAt): Promise<AppliedChange | null> {
    const failed = await intents.lastUnrecordedFailure(at.projectId);
    if (!failed) return null;
    const latest = (await changes.history(at.projectId)).at(-1);
    if (latest && latest.createdAt >= failed.updatedAt) return null;
    return settle(at, failed, 'failed');
  }

  /** Settles a pending intent whose process stopped (its lease ran out), unless another process does first. */
  async function settleStopped(at: WriteAt, left: ApplyIntent): Promise<AppliedChange | null> {
    if (!(await intents.takeOver(left.id, deps.leaseMs))) return null;
    return settle(at, left, 'stopped');
  }

  /**
   * Takes the project's lock for `intended`, settling first what a stopped process left. Throws
   * `ApplyInProgressError` while another holder is alive.
   */
  async function acquire(
    at: WriteAt,
    intended: Omit<NewApplyIntent, 'projectId' | 'platform'>,
  ): Promise<{ intent: ApplyIntent; recovered: AppliedChange | null }> {
    let recovered: AppliedChange | null = null;
    for (let tries = 0; tries < 5; tries += 1) {
      const mine = await intents.tryBegin(
        { ...intended, projectId: at.projectId, platform: at.writer.platform },
        deps.leaseMs,
      );
      if (mine) {
        try {
          recovered = (await settleLostAnswer(at)) ?? recovered;
        } catch (error) {
          await intents.discard(mine.id);
          throw error;
        }
        return { intent: mine, recovered };
      }
      const held = await intents.pendingOf(at.projectId);
      if (!held) continue;
      if (held.leaseUntil >= Date.now()) throw new ApplyInProgressError(at.projectId, held);
      recovered = (await settleStopped(at, held)) ?? recovered;
    }
    const held = await intents.pendingOf(at.projectId);
    if (held) throw new ApplyInProgressError(at.projectId, held);
    throw new AppError('rate_limited', 'APPLY_IN_PROGRESS', `project ${at.projectId} is busy; try again`);
  }

  /** A project's writes in this process wait for each other rather than for the queue's next retry. */
  const oneAtATime = oneAtATimeByKey();

  async function withLock<T>(
    at: WriteAt,
    intended: Omit<NewApplyIntent, 'projectId' | 'platform'>,
    work: (lock: ProjectLock) => Promise<T>,
  ): Promise<T> {
    return oneAtATime(at.projectId, () => holding(at, intended, work));
  }

  /**
   * Runs `work` holding the project's lock: the lease is renewed while it runs; an error ends the intent as
   * failed, with the error; an intent that wrote nothing and skipped nothing (nothing to write) is forgotten.
   */
  async function holding<T>(
    at: WriteAt,
    intended: Omit<NewApplyIntent, 'projectId' | 'platform'>,
    work: (lock: ProjectLock) => Promise<T>,
  ): Promise<T> {
    const { intent, recovered } = await acquire(at, intended);
    let ended = false;
    const renew = setInterval(
      () => void intents.extend(intent.id, deps.leaseMs).catch(() => undefined),
      Math.max(250, deps.leaseMs / 3),
    );
    renew.unref();
    const lock: ProjectLock = {
      intent,
      recovered,
      stage: (planned, reason) =>
        intents.stage(intent.id, {
          configuration: planned.configuration,
          undoes: planned.undoes?.id ?? null,
          reason,
        }),
      async record(planned, entry, last) {
        if (intent.kind === 'guard') throw new Error('the SLA guard writes nothing');
        const change = await changes.record(
          {
            projectId: at.projectId,
            platform: at.writer.platform,
            recommendationId: entry.recommendationId,
            kind: intent.kind,
            configuration: planned.configuration,
            undoes: planned.undoes?.id ?? null,
            actor: intent.actor,
            reason: entry.reason,
          },
          { intent: { id: intent.id, last } },
        );
        if (last) ended = true;
        return change;
      },
      async skip(reason) {
        ended = true;
        await intents.close(intent.id, 'skipped', reason);
        if (intent.kind === 'guard') return;
        await deps.audit.record({
          entity: 'project',
          entityId: at.projectId,
          action: applySkippedAction,
          actor: 'setpoint',
          detail: {
            platform: at.writer.platform,
            kind: intent.kind,
            recommendation_id: intent.recommendationId,
            requested_by: intent.actor,
            reason,
          },
        });
        deps.logger.info(
          { projectId: at.projectId, recommendationId: intent.recommendationId, reason },
          'apply skipped',
        );
      },
    };
    try {
      const result = await work(lock);
      if (!ended) {
        ended = true;
        await intents.discard(intent.id);
      }
      return result;
    } catch (error) {
      if (!ended)
        await intents.close(intent.id, 'failed', error instanceof Error ? error.message : String(error));
      throw error;
    } finally {
      clearInterval(renew);
    }
  }

  return { withLock, settleStopped };
}

export type ProjectLocks = ReturnType<typeof createProjectLocks>;
