import type { ProjectSettings } from '@setpoint/api-contract';
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

/** Whether a fresh recommendation may be written into the job without a person. */
export function decideAutoApply(input: {
  settings: ProjectSettings;
  paused: boolean;
  pauseReason: string | null;
  changesInPeriod: number;
  maxChangesPerPeriod: number;
  now: number;
}): AutoApplyDecision {
  if (!input.settings.autoApply) return { apply: false, reason: 'auto-apply is off' };
  if (input.paused) return { apply: false, reason: `auto-apply is paused: ${input.pauseReason ?? 'paused'}` };
  if (!insideOptimizationWindow(input.settings.optimizationWindow, input.now)) {
    return { apply: false, reason: 'outside the optimization window' };
  }
  if (input.changesInPeriod >= input.maxChangesPerPeriod) {
    return {
      apply: false,
      reason: `already ${input.changesInPeriod} automatic changes this week (cap ${input.maxChangesPerPeriod})`,
    };
  }
  return { apply: true, reason: 'auto-apply is on' };
}
