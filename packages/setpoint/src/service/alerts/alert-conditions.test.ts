import { describe, expect, it } from 'vitest';
import { type RunFacts, runFinding } from './alert-conditions.js';

const params = { thresholdPct: 20, windowRuns: 5, atRiskFraction: 0.9 };
const run = (
  id: string,
  runtimeMinutes: number | null,
  costUsd: number | null,
  status: string | null = 'SUCCESS',
): RunFacts => ({
  id,
  projectId: 'prj_1',
  status,
  runtimeMinutes,
  costUsd,
});
const context = { projectName: 'orders', slaMinutes: 30, params };

describe('alert conditions', () => {
  it('finds a missed SLA only above the SLA', () => {
    expect(runFinding('sla_missed', run('r', 31, 1), [], context)?.detail).toMatchObject({
      runtime_minutes: 31,
      sla_minutes: 30,
    });
    expect(runFinding('sla_missed', run('r', 30, 1), [], context)).toBeUndefined();
    expect(runFinding('sla_missed', run('r', 90, 1), [], { ...context, slaMinutes: null })).toBeUndefined();
  });

  it('finds an SLA at risk when the rolling SLA-hit rate falls below the target, not on one late run', () => {
    // newest first: nine runs, one of them late (8 of 9 met, 89%): already below 90%
    const nineWithOneLate = Array.from({ length: 9 }, (_, index) =>
      run(`p${index}`, index === 4 ? 31 : 20, 1),
    );
    const tenOnTime = Array.from({ length: 10 }, (_, index) => run(`p${index}`, 20, 1));
    // one late run after ten on time: 9 of 10 met, the target holds
    expect(runFinding('sla_at_risk', run('r', 30.01, 1), tenOnTime, context)).toBeUndefined();
    // a second miss within the last ten: 8 of 10 met, at risk
    const finding = runFinding('sla_at_risk', run('r', 30.01, 1), [run('p', 31, 1), ...tenOnTime], context);
    expect(finding?.key).toBe('sla_at_risk:r');
    expect(finding?.detail).toMatchObject({ runs: 10, missed: 2, sla_hit_rate: 0.8, target: 0.9 });
    expect(finding?.title).toBe(
      'orders: 2 of the last 10 runs missed the 30 min SLA (80% met, below the 90% target)',
    );
    // a failed run is a miss
    expect(
      runFinding('sla_at_risk', run('r', 5, 1, 'FAILED'), [run('p', 31, 1), ...tenOnTime], context),
    ).toBeDefined();
    // already at risk before this run: no second alert until the rate recovers
    expect(runFinding('sla_at_risk', run('r', 31, 1), nineWithOneLate, context)).toBeUndefined();
    expect(runFinding('sla_at_risk', run('r', 31, 1), [], { ...context, slaMinutes: null })).toBeUndefined();
  });

  it('finds a cost spike at 20% over the mean of the last five runs, configurable', () => {
    const five = [1, 1, 1, 1, 1].map((cost, index) => run(`p${index}`, 10, cost));

    expect(runFinding('cost_spike', run('r', 1.2, 1.2), five, context)?.detail).toMatchObject({
      mean_cost_usd: 1,
      above_mean_pct: 20,
    });
    expect(runFinding('cost_spike', run('r', 10, 1.19), five, context)).toBeUndefined();
    expect(runFinding('cost_spike', run('r', 10, 1.2), five.slice(0, 4), context)).toBeUndefined();
    const stricter = { ...context, params: { ...params, thresholdPct: 50, windowRuns: 2 } };
    expect(runFinding('cost_spike', run('r', 10, 1.4), five, stricter)).toBeUndefined();
    expect(runFinding('cost_spike', run('r', 10, 1.5), five, stricter)).toBeDefined();
  });
});
