import { describe, expect, it } from 'vitest';
import { changedDecisionSettings, defaultProjectSettings } from './project-settings.js';

describe('changedDecisionSettings', () => {
  const base = { ...defaultProjectSettings(), slaMinutes: 30, allowedInstanceTypes: ['m5.xlarge'] };

  it('names the settings a decision reads that changed, lists compared by value', () => {
    expect(
      changedDecisionSettings(base, {
        ...base,
        slaMinutes: 20,
        maxWorkers: 8,
        allowedInstanceTypes: ['m5.xlarge', 'r5.xlarge'],
      }),
    ).toEqual(['slaMinutes', 'maxWorkers', 'allowedInstanceTypes']);
    expect(changedDecisionSettings(base, { ...base, allowedInstanceTypes: ['m5.xlarge'] })).toEqual([]);
  });

  it('ignores how and when a decision is applied', () => {
    expect(
      changedDecisionSettings(base, {
        ...base,
        applyMode: 'auto',
        autoApply: true,
        optimizationWindow: { cron: '0 2 * * *', durationMinutes: 60 },
      }),
    ).toEqual([]);
  });
});
