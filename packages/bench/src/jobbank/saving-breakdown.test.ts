import type { ProjectRun } from 'setpoint/demo/loop-records';
import { describe, expect, it } from 'vitest';
import type { JobBankProject } from './jobbank-project.js';
import { projectSaving, savingBreakdown } from './saving-breakdown.js';

function run(
  costUsd: number,
  runtimeMinutes: number,
  learning: boolean | null,
  recommendationId: string | null = null,
): ProjectRun {
  return {
    id: `run_${costUsd}_${runtimeMinutes}`,
    runId: String(costUsd),
    status: 'SUCCESS',
    runtimeMinutes,
    costUsd,
    pipelineState: 'DONE',
    endedAt: 0,
    recommendationId,
    learning,
  };
}

function project(runs: ProjectRun[], changes: string[] = []): JobBankProject {
  return {
    platform: 'databricks',
    job: 'Nightly',
    project: 'Nightly',
    seed: 1,
    slaMinutes: 10,
    phase: 'OPTIMIZING',
    runs,
    predictedRuntimeMinutes: new Map(),
    changeRecommendationIds: new Set(changes),
    lastDecision: null,
  };
}

describe('where a project’s saving went', () => {
  it('counts the learning runs’ cost, the cheapest run that met the SLA and what the loop ended on', () => {
    const saving = projectSaving(
      project(
        [
          run(10, 8, null),
          // learning runs: one dear, one cheap that met the SLA, one cheap that missed it
          run(14, 5, true, 'rec_a'),
          run(6, 9, true, 'rec_b'),
          run(4, 12, true, 'rec_c'),
          // after learning it settles on a configuration dearer than the cheap one that met
          run(8, 7, false, 'rec_d'),
          run(8, 7, false, 'rec_d'),
        ],
        ['rec_a', 'rec_b', 'rec_c', 'rec_d'],
      ),
    );
    expect(saving.saving).toBeCloseTo(0.2);
    expect(saving.learningRuns).toBe(3);
    expect(saving.learningRunCostVsColdStart).toBeCloseTo(0.8);
    // the $4 run missed the SLA: the cheapest that met it cost $6
    expect(saving.bestSavingSeen).toBeCloseTo(0.4);
    expect(saving.lastOverCheapestMet).toBeCloseTo(8 / 6 - 1);
    expect(saving.moved).toBe(true);
  });

  it('tells apart the projects that never moved and those that end above the cheapest they saw meet the SLA', () => {
    const stayed = project([run(10, 8, null), run(10, 8, false, 'rec_keep'), run(10, 8, false, 'rec_keep')]);
    const settled = project(
      [run(10, 8, null), run(6, 9, true, 'rec_a'), run(9, 8, false, 'rec_b')],
      ['rec_a', 'rec_b'],
    );
    const breakdown = savingBreakdown([stayed, settled]);
    expect(breakdown.neverMoved).toBe(1);
    expect(breakdown.endAboveCheapestMet).toBe(1);
    expect(breakdown.perProject.map((entry) => entry.saving)).toEqual([0, 0.1]);
    expect(breakdown.medianBestSavingSeen).toBeCloseTo(0.2);
  });
});
