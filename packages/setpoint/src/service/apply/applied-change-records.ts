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
}

export type NewAppliedChange = Omit<AppliedChange, 'id' | 'createdAt'>;

/** A project's auto-apply pause and the last configuration a run went well on. */
export interface ApplyGuard {
  paused: boolean;
  pauseReason: string | null;
  lastGoodChangeId: string | null;
}

/** A configuration Setpoint wrote from a recommendation (not an undo, nor what it found on the platform). */
export const isChange = (change: Pick<AppliedChange, 'kind'> | undefined): boolean =>
  change?.kind === 'apply' || change?.kind === 'auto-apply';
