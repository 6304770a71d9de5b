import { describe, expect, it } from 'vitest';
import { emptyMetricTotals } from '../run-aggregator.js';
import type { StageProfile } from '../run-profile.js';
import { criticalPathOfGroups, replayOnSlots } from './what-if.js';

function stage(
  stageId: number,
  parentIds: number[],
  durations: number[],
  failed: number[] = [],
): StageProfile {
  const sorted = [...durations].sort((a, b) => a - b);
  return {
    ...emptyMetricTotals(),
    tasks: durations.length + failed.length,
    stageId,
    attemptId: 0,
    name: `stage ${stageId}`,
    numTasks: durations.length,
    parentIds,
    jobIds: [0],
    status: 'COMPLETE',
    failureReason: null,
    submissionTime: null,
    firstTaskLaunchedTime: null,
    completionTime: null,
    taskDurationsMs: durations,
    unsuccessfulTaskDurationsMs: failed,
    medianTaskMs: sorted[sorted.length >> 1] ?? 0,
    maxTaskMs: sorted[sorted.length - 1] ?? 0,
    skewRatio: 1,
  };
}

describe('replayOnSlots', () => {
  it('spreads equal tasks over the slots', () => {
    const groups = [{ stages: [stage(0, [], [100, 100, 100, 100])] }];
    expect(replayOnSlots(groups, 1)).toBe(400);
    expect(replayOnSlots(groups, 2)).toBe(200);
    expect(replayOnSlots(groups, 4)).toBe(100);
    expect(replayOnSlots(groups, 64)).toBe(100);
  });

  it('waits for parent stages and lets independent stages share slots', () => {
    const groups = [{ stages: [stage(0, [], [100, 100]), stage(1, [], [50, 50]), stage(2, [0, 1], [10])] }];
    // Two slots: stage 0 fills both until 100, stage 1 runs 100–150 on both, stage 2 after 150.
    expect(replayOnSlots(groups, 2)).toBe(160);
    // Four slots: 0 and 1 run side by side, stage 2 starts when stage 0 ends at 100.
    expect(replayOnSlots(groups, 4)).toBe(110);
  });

  it('adds up groups of concurrent jobs and schedules failed attempts too', () => {
    const groups = [{ stages: [stage(0, [], [100], [40])] }, { stages: [stage(1, [], [30, 30])] }];
    expect(replayOnSlots(groups, 1)).toBe(140 + 60);
    expect(replayOnSlots(groups, 2)).toBe(100 + 30);
  });

  it('is never faster than the critical path and never slower on more slots', () => {
    const groups = [
      { stages: [stage(0, [], [5, 80, 7, 9, 12, 3]), stage(1, [0], [20, 25, 30]), stage(2, [1], [300])] },
    ];
    const critical = criticalPathOfGroups(groups);
    expect(critical).toBe(80 + 30 + 300);
    let previous = Number.POSITIVE_INFINITY;
    for (const slots of [1, 2, 3, 4, 8, 16]) {
      const estimate = replayOnSlots(groups, slots);
      expect(estimate).toBeGreaterThanOrEqual(critical);
      expect(estimate).toBeLessThanOrEqual(previous);
      previous = estimate;
    }
  });
});
