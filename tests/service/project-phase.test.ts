import type {
  RecommendationInput,
  RecommendationOutput,
  Recommender,
} from 'setpoint/service/recommender/recommender';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { processedFixtureRun } from './support/fixture-runs.js';
import { createHarness, type Harness } from './support/service-harness.js';

vi.setConfig({ testTimeout: 150_000, hookTimeout: 150_000 });

/** Judges every project LEARNING until it has seen `learnedAfter` runs, then OPTIMIZING. */
function phaseRecommender(learnedAfter: number): Recommender {
  return {
    async recommend(input: RecommendationInput): Promise<RecommendationOutput> {
      return {
        phase: input.runs.length >= learnedAfter ? 'OPTIMIZING' : 'LEARNING',
        configuration: { node_type_id: 'i3.xlarge', num_workers: 2 },
        prediction: { runtimeMinutes: { low: 1, mid: 2, high: 3 }, costUsd: { low: 1, mid: 2, high: 3 } },
        explanation: `from ${input.runs.length} runs`,
      };
    },
  };
}

describe('project phase', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness({ startWorkers: true, analysis: { recommender: phaseRecommender(3) } });
  });

  afterAll(async () => {
    await h?.close();
  });

  async function phaseRows(projectId: string) {
    const audit = (await h.request('GET', `/api/v1/projects/${projectId}/audit`)).json();
    return audit.items
      .filter((entry: { action: string }) => entry.action === 'phase')
      .map((entry: { detail: { from: string; to: string } }) => `${entry.detail.from}→${entry.detail.to}`);
  }

  it('moves only as the recommendations judge, one audit row per real change', async () => {
    const project = (await h.request('POST', '/api/v1/projects', { name: 'phases' })).json();

    await processedFixtureRun(h, project.id, 'phase-1');
    await processedFixtureRun(h, project.id, 'phase-2');
    expect(await phaseRows(project.id)).toEqual(['PENDING_SETUP→LEARNING']);
    expect((await h.request('GET', `/api/v1/projects/${project.id}`)).json().phase).toBe('LEARNING');

    await processedFixtureRun(h, project.id, 'phase-3');
    expect(await phaseRows(project.id)).toEqual(['PENDING_SETUP→LEARNING', 'LEARNING→OPTIMIZING']);
    expect((await h.request('GET', `/api/v1/projects/${project.id}`)).json().phase).toBe('OPTIMIZING');
  });
});
