import { z } from 'zod';

/**
 * How a project's recommendations reach its cluster. `manual`: recommend only (a person applies);
 * `approve-learning`: learning runs wait for a person's approval, optimizing changes apply on their own;
 * `auto`: every change applies on its own. The auto-apply switch of earlier versions is `manual` (off) or
 * `auto` (on).
 */
export const applyModes = ['manual', 'approve-learning', 'auto'] as const;
export type ApplyMode = (typeof applyModes)[number];
export const applyModeSchema = z.enum(applyModes);

interface ApplyModeFields {
  applyMode?: ApplyMode | undefined;
  autoApply?: boolean | undefined;
}

/** A project's apply mode; settings stored before the mode existed say only whether auto-apply was on. */
export function applyModeOf(settings: ApplyModeFields): ApplyMode {
  return settings.applyMode ?? (settings.autoApply ? 'auto' : 'manual');
}

/**
 * The apply mode and the auto-apply switch after `change`, kept in agreement: `autoApply` is true unless
 * the mode is `manual`. A change naming `applyMode` sets it; one naming only `autoApply` (clients of earlier
 * versions, the Gradient-compatible API) turns auto-apply off (`manual`) or on (`auto`, or stays
 * `approve-learning` when it already was); one naming neither keeps the mode `current` has.
 */
export function withApplyMode<Change extends ApplyModeFields>(
  current: ApplyModeFields,
  change: Change,
): Change & { applyMode: ApplyMode; autoApply: boolean } {
  const before = applyModeOf(current);
  const applyMode =
    change.applyMode ??
    (change.autoApply === undefined
      ? before
      : change.autoApply
        ? before === 'approve-learning'
          ? 'approve-learning'
          : 'auto'
        : 'manual');
  return { ...change, applyMode, autoApply: applyMode !== 'manual' };
}
