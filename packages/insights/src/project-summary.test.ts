import { expect, it } from 'vitest';
import { dailyRuns, day, start } from '../../../tests/insights/run-builder.js';
import { summarizeProject } from './project-summary.js';

it('summarizes the last run, recent cost and runtime, SLA hit rate, ROI and insights', () => {
  const runs = dailyRuns([
    { minutes: 20, cost: 10 },
    { minutes: 40, cost: 10 },
    { minutes: 20, cost: 6, rec: 'rec-1' },
    { minutes: 24, cost: 6, rec: 'rec-1', status: 'FAILED' },
  ]);
  const summary = summarizeProject(runs, { now: start + 4 * day, slaMinutes: 30 }, 5);
  expect(summary.runs).toBe(4);
  expect(summary.lastRun).toEqual({
    id: 'run-3',
    status: 'FAILED',
    startedAt: start + 3 * day,
    runtimeMinutes: 24,
  });
  expect(summary.costPerRunUsd).toBeCloseTo((10 + 10 + 6) / 3, 12);
  expect(summary.runtimeMinutes).toBeCloseTo((20 + 40 + 20) / 3, 12);
  // the rolling SLA-hit rate: 20 met, 40 missed, 20 met, and the failed run missed too
  expect(summary.slaHitRate).toBeCloseTo(2 / 4, 12);
  expect(summary.slaHealth).toMatchObject({ runs: 4, met: 2, missed: 2, atRisk: true });
  // the spend of the window the KPI header sums: every costed run's components
  expect(summary.spend.total_usd).toBeCloseTo(10 + 10 + 6 + 6, 12);
  expect(summary.roi?.savingsToDateUsd).toBeCloseTo(4, 12);
  expect(summarizeProject([], { now: start, slaMinutes: null })).toMatchObject({
    runs: 0,
    lastRun: null,
    costPerRunUsd: null,
    slaHitRate: null,
    roi: null,
    insights: [],
  });
});
