import { describe, expect, it } from 'vitest';
import { dailyRuns, repeat } from '../../../tests/insights/run-builder.js';
import { rollingSlaHealth, slaHealth, slaOutcome } from './sla-health.js';

const run = (minutes: number | null, status: string | null = 'SUCCESS') => ({
  id: 'r',
  status,
  runtimeMinutes: minutes,
});

describe('what counts as an SLA miss', () => {
  it('is any runtime over the SLA, however small, or a failure; nothing without an SLA or an outcome', () => {
    expect(slaOutcome(run(4.02), 4)).toBe('missed');
    expect(slaOutcome(run(4), 4)).toBe('met');
    expect(slaOutcome(run(2, 'FAILED'), 4)).toBe('missed');
    expect(slaOutcome(run(null, 'TIMEDOUT'), 4)).toBe('missed');
    expect(slaOutcome(run(9, 'CANCELED'), 4)).toBeNull();
    expect(slaOutcome(run(null), 4)).toBeNull();
    expect(slaOutcome(run(9), null)).toBeNull();
  });
});

describe('SLA health', () => {
  it('is the hit rate of the last ten judged runs, at risk below 90%', () => {
    // twelve runs: the two oldest missed, then ten on time
    const runs = dailyRuns([{ minutes: 5 }, { minutes: 5 }, ...repeat(10, () => ({ minutes: 3 }))]);
    expect(slaHealth(runs, 4)).toMatchObject({ runs: 10, met: 10, missed: 0, hitRate: 1, atRisk: false });
    // one late run among the last ten: 90% holds the target
    const oneLate = dailyRuns([...repeat(9, () => ({ minutes: 3 })), { minutes: 4.02 }]);
    expect(slaHealth(oneLate, 4)).toMatchObject({ runs: 10, missed: 1, hitRate: 0.9, atRisk: false });
    expect(slaHealth(oneLate, 4).lastMiss).toEqual({
      runId: 'run-9',
      runtimeMinutes: expect.closeTo(4.02, 9),
      failed: false,
    });
    // a second: at risk, whichever run is the latest
    const twoLate = dailyRuns([{ minutes: 5 }, ...repeat(8, () => ({ minutes: 3 })), { status: 'FAILED' }]);
    expect(slaHealth(twoLate, 4)).toMatchObject({ runs: 10, missed: 2, hitRate: 0.8, atRisk: true });
    expect(slaHealth(twoLate, 4).lastMiss?.failed).toBe(true);
    const recovered = dailyRuns([
      { minutes: 5 },
      { minutes: 5 },
      ...repeat(8, () => ({ minutes: 3 })),
      { minutes: 3 },
    ]);
    // the window rolls: an eleventh run on time leaves one of the two old misses in the last ten
    expect(slaHealth(recovered, 4)).toMatchObject({ runs: 10, missed: 1, atRisk: false });
  });

  it('says nothing without an SLA or a finished run, and takes its window and target as options', () => {
    expect(slaHealth(dailyRuns([{ minutes: 5 }]), null)).toMatchObject({
      runs: 0,
      hitRate: null,
      atRisk: false,
    });
    expect(slaHealth([], 4)).toMatchObject({ runs: 0, hitRate: null, atRisk: false, lastMiss: null });
    const runs = [run(3), run(5), run(3), run(3)];
    expect(rollingSlaHealth(runs, 4, { window: 2 })).toMatchObject({ runs: 2, hitRate: 1 });
    expect(rollingSlaHealth(runs, 4, { target: 0.7 })).toMatchObject({ hitRate: 0.75, atRisk: false });
  });
});
