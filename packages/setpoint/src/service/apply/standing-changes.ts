import { NotFoundError } from '@setpoint/foundation/errors';
import { type AppliedChange, isChange } from './applied-change-records.js';

/**
 * Setpoint's changes still in place, oldest first. A `baseline` (the configuration found) ends every change
 * before it, and so does an undo that wrote a whole configuration; an undo of one change (`undoes`) ends
 * that change only.
 */
export function standingChanges(history: readonly AppliedChange[]): AppliedChange[] {
  let standing: AppliedChange[] = [];
  for (const entry of history) {
    if (isChange(entry)) standing.push(entry);
    else if (entry.kind !== 'baseline' && entry.undoes !== null)
      standing = standing.filter((change) => change.id !== entry.undoes);
    else standing = [];
  }
  return standing;
}

/**
 * Where a rollback goes: the entry asked for, or by default the newest configuration before the one in place
 * whose runs met the SLA (`metSlaAt`), the cold start if none did (the configuration found when the project
 * was linked, or before every change of Setpoint's still in place); and the changes after it that still stand.
 */
export function rollbackTarget(
  projectId: string,
  history: readonly AppliedChange[],
  toId: string | undefined,
): { to: AppliedChange | null; undo: AppliedChange[] } {
  const standing = standingChanges(history);
  let position: number;
  if (toId !== undefined) {
    position = history.findIndex((entry) => entry.id === toId);
    if (position < 0)
      throw new NotFoundError(
        'NO_EARLIER_CONFIG',
        `project ${projectId} has no applied configuration ${toId}`,
      );
  } else {
    const inPlace = history.length - 1;
    if (inPlace < 1 && standing.length === 0)
      throw new NotFoundError(
        'NO_EARLIER_CONFIG',
        `project ${projectId} has no earlier configuration to roll back to`,
      );
    position = history.slice(0, Math.max(inPlace, 0)).findLastIndex((entry) => entry.metSlaAt !== null);
    if (position < 0) position = history[0]?.kind === 'baseline' ? 0 : -1;
  }
  const to = history[position] ?? null;
  return { to, undo: standing.filter((change) => history.indexOf(change) > position) };
}
