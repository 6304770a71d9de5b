import { describe, expect, it } from 'vitest';
import { type ServerlessRunRecord, serverlessMetrics } from './serverless-metrics.js';

const run = (
  performanceTarget: 'PERFORMANCE_OPTIMIZED' | 'STANDARD',
  runtimeMinutes: number,
  costUsd: number | null,
  extra: Partial<ServerlessRunRecord> = {},
): ServerlessRunRecord => ({
  performanceTarget,
  status: 'SUCCESS',
  runtimeMinutes,
  costUsd,
  costPending: false,
  wasPending: false,
  ...extra,
});

describe('serverlessMetrics', () => {
  it('judges the SLA against 4–6 minutes of start-up and counts every run after the first recommendation', () => {
    const metrics = serverlessMetrics([
      {
        job: 'long',
        seed: 1,
        slaMinutes: 125,
        modeWrites: 1,
        runs: [
          run('PERFORMANCE_OPTIMIZED', 100, 10, { wasPending: true }),
          run('PERFORMANCE_OPTIMIZED', 100, 10),
          run('STANDARD', 106, 7),
          run('STANDARD', 105, 7),
        ],
      },
      {
        job: 'middle',
        seed: 1,
        slaMinutes: 26,
        modeWrites: 0,
        runs: [run('PERFORMANCE_OPTIMIZED', 21, 2), run('PERFORMANCE_OPTIMIZED', 21, 2)],
      },
      {
        job: 'short',
        seed: 1,
        slaMinutes: 7,
        modeWrites: 0,
        runs: [run('PERFORMANCE_OPTIMIZED', 5.5, 0.5), run('PERFORMANCE_OPTIMIZED', 5.5, 0.5)],
      },
    ]);

    expect(metrics.jobs.map((job) => job.sensitivity)).toEqual(['allows', 'between', 'not']);
    const [long] = metrics.jobs;
    // runs 2–4 cost 10 + 7 + 7 against 3 × 10 unchanged
    expect(long?.savingAfterFirstRecommendation).toBeCloseTo(1 - 24 / 30, 9);
    expect(long?.savingInStandard).toBeCloseTo(0.3, 9);
    expect(long?.wasPendingRuns).toBe(1);
    expect(metrics.allowsMinSaving).toBeCloseTo(0.2, 9);
    expect(metrics.notAllowedChanged).toBe(0);
    expect(metrics.zeroCostRuns).toBe(0);
  });

  it('counts a changed job whose SLA does not allow standard mode, runs at $0 and runs still pending', () => {
    const metrics = serverlessMetrics([
      {
        job: 'short',
        seed: 2,
        slaMinutes: 7,
        modeWrites: 1,
        runs: [
          run('PERFORMANCE_OPTIMIZED', 5.5, 0),
          run('STANDARD', 11, null, { costPending: true }),
          run('PERFORMANCE_OPTIMIZED', 5.5, 0.5),
        ],
      },
    ]);

    expect(metrics.notAllowedChanged).toBe(1);
    expect(metrics.zeroCostRuns).toBe(1);
    expect(metrics.pendingRuns).toBe(1);
    expect(metrics.jobs[0]?.slaMissesAfterFirstRecommendation).toBe(1);
    // a pending run leaves the saving unknown rather than flattering it
    expect(metrics.jobs[0]?.savingAfterFirstRecommendation).toBeNull();
    expect(metrics.allowsMinSaving).toBeNull();
  });
});
