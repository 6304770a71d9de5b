import { defaultProjectSettings } from '@setpoint/api-contract';
import { describe, expect, it } from 'vitest';
import { decideAutoApply, insideOptimizationWindow } from './auto-apply-policy.js';

const saturday0230 = Date.UTC(2026, 10, 21, 2, 30);

describe('insideOptimizationWindow', () => {
  it('is open for the window’s duration after each cron start', () => {
    const nightly = { cron: '0 2 * * *', durationMinutes: 60 };

    expect(insideOptimizationWindow(nightly, saturday0230)).toBe(true);
    expect(insideOptimizationWindow(nightly, saturday0230 + 60 * 60_000)).toBe(false);
    expect(insideOptimizationWindow(null, saturday0230)).toBe(true);
  });
});

describe('decideAutoApply', () => {
  const base = {
    paused: false,
    pauseReason: null,
    history: [],
    maxChangesPerWeek: 5,
    now: saturday0230,
  };

  it('applies only when the apply mode lets changes apply on their own', () => {
    expect(decideAutoApply({ ...base, settings: defaultProjectSettings() })).toEqual({
      apply: false,
      reason: 'auto-apply is off (apply mode manual: recommend only)',
    });
    const inMode = (applyMode: 'auto' | 'approve-learning') =>
      decideAutoApply({ ...base, settings: { ...defaultProjectSettings(), applyMode, autoApply: true } });
    expect(inMode('auto').apply).toBe(true);
    // optimizing changes apply on their own; learning runs wait for a person before this is asked
    expect(inMode('approve-learning').apply).toBe(true);
  });

  it('respects a pause, the window and the weekly cap', () => {
    const settings = { ...defaultProjectSettings(), applyMode: 'auto' as const, autoApply: true };

    expect(decideAutoApply({ ...base, settings, paused: true, pauseReason: 'edited in the UI' }).reason).toBe(
      'auto-apply is paused: edited in the UI',
    );
    expect(
      decideAutoApply({
        ...base,
        settings: { ...settings, optimizationWindow: { cron: '0 5 * * *', durationMinutes: 30 } },
      }).reason,
    ).toBe('outside the optimization window');
    const day = 86_400_000;
    const automatic = (daysAgo: number) => ({ kind: 'auto-apply', createdAt: saturday0230 - daysAgo * day });
    const thisWeek = [1, 2, 3, 4, 6].map(automatic);
    expect(decideAutoApply({ ...base, settings, history: thisWeek }).reason).toBe(
      'already 5 automatic changes this week (cap 5)',
    );
    // Changes older than a week and changes a person made do not count towards the cap.
    const olderOrManual = [
      ...thisWeek.slice(0, 4),
      automatic(8),
      { kind: 'apply', createdAt: saturday0230 - day },
    ];
    expect(decideAutoApply({ ...base, settings, history: olderOrManual }).apply).toBe(true);
  });
});
