import type { AppliedChangeKind } from '@setpoint/api-contract';

export type { AppliedChangeKind };

/** One entry of a project's apply history: what Setpoint wrote (or found) on the project's platform. */
export interface AppliedChange {
  id: string;
  projectId: string;
  /** The platform that wrote it. */
  platform: string;
  recommendationId: string | null;
  kind: AppliedChangeKind;
  /** The platform's record of it, in its own terms (a whole cluster, or a resize with before and after). */
  configuration: Record<string, unknown>;
  /** The change a rollback or revert undid, where the platform undoes changes one by one. */
  undoes: string | null;
  actor: string;
  reason: string;
  createdAt: number;
  /** When a run on it first met the project's SLA; null while none has. */
  metSlaAt: number | null;
}

export type NewAppliedChange = Omit<AppliedChange, 'id' | 'createdAt' | 'metSlaAt'>;

/** A project's auto-apply pause and the last configuration a run went well on. */
export interface ApplyGuard {
  paused: boolean;
  pauseReason: string | null;
  lastGoodChangeId: string | null;
}

/** A configuration Setpoint wrote from a recommendation (not an undo, nor what it found on the platform). */
export const isChange = (change: Pick<AppliedChange, 'kind'> | undefined): boolean =>
  change?.kind === 'apply' || change?.kind === 'auto-apply';

/** Where a write stands: `pending` until its outcome is known (at most one per project). */
export type ApplyIntentState = 'pending' | 'written' | 'skipped' | 'failed' | 'abandoned';

/** A write into a project's cluster, recorded as intended before it is written. */
export interface ApplyIntent {
  id: string;
  projectId: string;
  platform: string;
  /** What is written; `guard`: the SLA guard's look at a run, which writes nothing but holds the lock. */
  kind: Exclude<AppliedChangeKind, 'baseline'> | 'guard';
  recommendationId: string | null;
  actor: string;
  state: ApplyIntentState;
  /** The write in flight, as the history records it once written; null until planned. */
  configuration: Record<string, unknown> | null;
  undoes: string | null;
  reason: string | null;
  /** Why it was skipped, failed or abandoned. */
  outcome: string | null;
  changeId: string | null;
  leaseUntil: number;
  createdAt: number;
  updatedAt: number;
}

export type NewApplyIntent = Pick<
  ApplyIntent,
  'projectId' | 'platform' | 'kind' | 'recommendationId' | 'actor'
>;
