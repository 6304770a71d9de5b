import { ConflictError } from '@setpoint/foundation/errors';

/**
 * An SLA-guard revert as the apply core queues it: undo `configId`, the change Setpoint made that a bad run
 * ran on, back to `toConfigId` when one was chosen (otherwise the configuration before it).
 */
export interface RevertIntent {
  projectId: string;
  configId: string;
  toConfigId?: string | undefined;
  reason: string;
}

/** The idempotency key of a revert job: one per change, however many bad runs report it. */
export const revertJobKey = (kind: string, configId: string) => `${kind}:${configId}`;

/** What the apply core gives the revert job. */
export interface RevertTarget {
  /** Setpoint's changes still in effect, oldest first: an undone change is not among them. */
  standing(projectId: string): Promise<ReadonlyArray<{ id: string }>>;
  /**
   * Undoes the latest standing change and records it. Idempotent: when the platform already holds the
   * configuration the undo writes (an earlier try wrote it and was not recorded), it records without writing.
   */
  undo(intent: RevertIntent): Promise<unknown>;
}

/**
 * The revert job, the same on every platform: a change already undone (the job ran before) is done; a change
 * Setpoint made again since is not overwritten (a person decides); otherwise the change is undone.
 */
export async function revertChange(target: RevertTarget, intent: RevertIntent): Promise<void> {
  const standing = await target.standing(intent.projectId);
  if (!standing.some((config) => config.id === intent.configId)) return;
  if (standing.at(-1)?.id !== intent.configId)
    throw new ConflictError(
      'REVERT_SUPERSEDED',
      `cannot revert ${intent.configId}: Setpoint changed project ${intent.projectId} again since; roll back by hand`,
    );
  await target.undo(intent);
}
