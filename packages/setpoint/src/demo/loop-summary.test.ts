import { median } from '@setpoint/foundation/statistics';
import { describe, expect, it } from 'vitest';
import type { ProjectRun } from './closed-loop-driver.js';
import { overallSummary, summarizeProject } from './loop-summary.js';

const run = (costUsd: number, runtimeMinutes: number, status = 'SUCCESS'): ProjectRun => ({
  id: `run_${costUsd}`,
  runId: String(costUsd),
  status,
  runtimeMinutes,
  costUsd,
  pipelineState: 'DONE',
  endedAt: 0,
  recommendationId: null,
});

describe('closed-loop summaries', () => {
  it('measures saving from the first to the last costed run and SLA hits after learning', () => {
    const runs = [
      run(10, 30),
      run(8, 35),
      run(7, 38),
      run(6, 50),
      run(5, 39),
      run(5, 41, 'FAILED'),
      run(5, 45),
    ];

    const summary = summarizeProject('etl', runs, 40, 'OPTIMIZING');

    expect(summary.saving).toBeCloseTo(0.5, 10);
    expect(summary.slaMetLastRuns).toEqual({ met: 1, of: 3 });
  });

  it('reports the median saving and the violation rate across projects', () => {
    const projects = [
      summarizeProject('a', [run(10, 1), run(7, 1)], 5, 'LEARNING'),
      summarizeProject('b', [run(10, 1), run(9, 1)], 5, 'LEARNING'),
      summarizeProject('c', [run(10, 1), run(2, 1), run(2, 1), run(2, 1), run(2, 9)], 5, 'OPTIMIZING'),
    ];

    expect(overallSummary(projects)).toEqual({
      medianSaving: expect.closeTo(0.3, 10),
      slaViolationRateAfterLearning: 1,
    });
    expect(median([])).toBeNull();
    expect(median([3, 1, 2, 4])).toBe(2.5);
  });
});
