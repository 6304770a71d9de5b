import { describe, expect, it } from 'vitest';
import type { ProjectRun } from '../../demo/closed-loop-driver.js';
import { type JobBankProject, jobBankMetrics, percentile, predictionErrors } from './jobbank-metrics.js';

function run(
  costUsd: number,
  runtimeMinutes: number,
  recommendationId: string | null = null,
  status = 'SUCCESS',
) {
  return {
    id: `run_${costUsd}_${runtimeMinutes}`,
    runId: String(costUsd),
    status,
    runtimeMinutes,
    costUsd,
    pipelineState: 'DONE',
    endedAt: 0,
    recommendationId,
  } satisfies ProjectRun;
}

function project(job: string, runs: ProjectRun[], predicted: Record<string, number> = {}): JobBankProject {
  return {
    job,
    project: job,
    seed: 1,
    slaMinutes: 10,
    phase: 'OPTIMIZING',
    runs,
    predictedRuntimeMinutes: new Map(Object.entries(predicted)),
  };
}

const noOperations = { webhookToRecommendationMs: [], collectionFailures: 0, incompleteRuns: 0, reverts: 0 };

describe('Job Bank metrics', () => {
  it('measures prediction error only on finished runs made on a predicted recommendation', () => {
    const observed = project(
      'etl',
      [run(10, 8), run(8, 9, 'rec_a'), run(7, 12, 'rec_b'), run(7, 6, 'rec_b', 'FAILED'), run(6, 5, 'rec_x')],
      { rec_a: 10, rec_b: 12 },
    );

    expect(predictionErrors(observed)).toEqual([expect.closeTo(0.1, 10), 0]);
  });

  it('sums SLA hits after learning across projects and keeps per-job figures apart', () => {
    const learning = [run(10, 5), run(9, 5), run(8, 5), run(8, 5)];
    const metrics = jobBankMetrics(
      [
        project('a', [...learning, run(5, 9), run(5, 11)]),
        project('b', [...learning, run(8, 4), run(8, 4, null, 'FAILED')]),
      ],
      { ...noOperations, webhookToRecommendationMs: [300, 100, 200], reverts: 2 },
    );

    expect(metrics.afterLearning.runs).toBe(4);
    expect(metrics.afterLearning.slaMetShare).toBe(0.5);
    expect(metrics.afterLearning.failureRate).toBe(0.25);
    expect(metrics.afterLearning.medianSaving).toBeCloseTo(0.35, 10);
    expect(metrics.perJob.a).toEqual({ medianSaving: expect.closeTo(0.5, 10), slaMetShare: 0.5 });
    expect(metrics.perJob.b?.slaMetShare).toBe(0.5);
    expect(metrics.operations.webhookToRecommendation).toEqual({ samples: 3, p50Ms: 200, p95Ms: 300 });
    expect(metrics.operations.reverts).toBe(2);
  });

  it('has no figures where nothing was observed', () => {
    const metrics = jobBankMetrics([], noOperations);

    expect(metrics.afterLearning.slaMetShare).toBeNull();
    expect(metrics.prediction.medianAbsError).toBeNull();
    expect(percentile([], 0.5)).toBeNull();
    expect(percentile([4, 1, 3, 2], 0.5)).toBe(2);
  });
});
