import { applyModeOf, type ProjectSettings } from '@setpoint/api-contract';
import { Cron } from 'croner';

/** Inside the optimization window when one is set: a window opened within the last `durationMinutes`. */
export function insideOptimizationWindow(
  window: ProjectSettings['optimizationWindow'],
  now: number,
): boolean {
  if (!window) return true;
  const opened = new Cron(window.cron, { paused: true }).nextRun(
    new Date(now - window.durationMinutes * 60_000),
  );
  return opened !== null && opened.getTime() <= now;
}

export interface AutoApplyDecision {
  apply: boolean;
  reason: string;
}

const autoApplyPeriodMs = 7 * 86_400_000;

/** One change Setpoint made to a project's cluster, as each platform's apply history records it. */
export interface AppliedChange {
  kind: string;
  createdAt: number;
}

/**
 * Whether a fresh recommendation may be written into the job without a person (in apply mode
 * `approve-learning`, a learning run waits for one all the same: `waitsForApproval`). The cap counts the
 * project's automatic changes of the last seven days.
 */
export function decideAutoApply(input: {
  settings: ProjectSettings;
  paused: boolean;
  pauseReason: string | null;
  history: readonly AppliedChange[];
  maxChangesPerWeek: number;
  now: number;
}): AutoApplyDecision {
  if (applyModeOf(input.settings) === 'manual')
    return { apply: false, reason: 'auto-apply is off (apply mode manual: recommend only)' };
  if (input.paused) return { apply: false, reason: `auto-apply is paused: ${input.pauseReason ?? 'paused'}` };
  if (!insideOptimizationWindow(input.settings.optimizationWindow, input.now)) {
    return { apply: false, reason: 'outside the optimization window' };
  }
  const since = input.now - autoApplyPeriodMs;
  const changesThisWeek = input.history.filter(
    (change) => change.kind === 'auto-apply' && change.createdAt >= since,
  ).length;
  if (changesThisWeek >= input.maxChangesPerWeek) {
    return {
      apply: false,
      reason: `already ${changesThisWeek} automatic changes this week (cap ${input.maxChangesPerWeek})`,
    };
  }
  return { apply: true, reason: 'auto-apply is on' };
}
