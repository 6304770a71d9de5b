import { describe, expect, it } from 'vitest';
import { type RunFacts, runFinding } from './alert-conditions.js';

const params = { thresholdPct: 20, windowRuns: 5, atRiskFraction: 0.9 };
const run = (id: string, runtimeMinutes: number | null, costUsd: number | null): RunFacts => ({
  id,
  projectId: 'prj_1',
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

  it('finds an SLA at risk when the runtime rises into the last tenth of the SLA', () => {
    expect(runFinding('sla_at_risk', run('r', 28, 1), [run('p', 25, 1)], context)?.key).toBe('sla_at_risk:r');
    expect(runFinding('sla_at_risk', run('r', 28, 1), [run('p', 29, 1)], context)).toBeUndefined();
    expect(runFinding('sla_at_risk', run('r', 26, 1), [run('p', 20, 1)], context)).toBeUndefined();
    expect(runFinding('sla_at_risk', run('r', 31, 1), [run('p', 20, 1)], context)).toBeUndefined();
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
