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
 * Where a rollback goes: the entry asked for, or by default the one before Setpoint's latest change still in
 * place (with none in place, the one before the newest entry); and the changes after it that still stand.
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
    const latest = standing.at(-1);
    position = latest ? history.indexOf(latest) - 1 : history.length - 2;
    if (!latest && position < 0)
      throw new NotFoundError(
        'NO_EARLIER_CONFIG',
        `project ${projectId} has no earlier configuration to roll back to`,
      );
  }
  const to = history[position] ?? null;
  return { to, undo: standing.filter((change) => history.indexOf(change) > position) };
}
