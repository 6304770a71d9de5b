import type {
  RecommendationInput,
  RecommendationOutput,
  Recommender,
} from 'setpoint/service/recommender/recommender';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { processedFixtureRun } from './support/fixture-runs.js';
import { createHarness, eventually, type Harness } from './support/service-harness.js';

vi.setConfig({ testTimeout: 150_000, hookTimeout: 150_000 });

/** Answers with the SLA it was given, so a test sees which settings a recommendation was decided on. */
class SlaEchoRecommender implements Recommender {
  async recommend(input: RecommendationInput): Promise<RecommendationOutput> {
    const sla = input.project.settings.slaMinutes;
    return {
      phase: input.project.phase,
      configuration: { node_type_id: 'i3.xlarge', num_workers: sla === null ? 2 : 4 },
      prediction: {
        runtimeMinutes: { low: 1, mid: 2, high: 3 },
        costUsd: { low: 1, mid: 2, high: 3 },
      },
      explanation: `decided for SLA ${sla ?? 'none'}`,
    };
  }
}

interface ListedRecommendation {
  id: string;
  state: string;
  based_on_run_id: string;
  explanation: string;
}

describe('a change to a setting a recommendation is decided on', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness({ startWorkers: true, analysis: { recommender: new SlaEchoRecommender() } });
  });

  afterAll(async () => {
    await h?.close();
  });

  const recommendationsOf = async (projectId: string): Promise<ListedRecommendation[]> =>
    (await h.request('GET', `/api/v1/projects/${projectId}/recommendations`)).json().items;

  it('decides again on the newest run, so the card judges the SLA the team just set', async () => {
    const project = (await h.request('POST', '/api/v1/projects', { name: 'sla-later' })).json();
    const runId = await processedFixtureRun(h, project.id, 'run-1');
    const [first] = await recommendationsOf(project.id);
    expect(first?.explanation).toBe('decided for SLA none');

    const patched = await h.request('PATCH', `/api/v1/projects/${project.id}`, {
      settings: { slaMinutes: 30 },
    });
    expect(patched.status).toBe(200);
    const requested = patched.json().decided_again?.recommendation_id;
    expect(requested).toEqual(expect.any(String));
    expect(requested).not.toBe(first?.id);

    const latest = await eventually(async () => {
      const found = await h.request('GET', `/api/v1/projects/${project.id}/recommendations/latest`);
      return found.status === 200 && found.json().id !== first?.id ? found.json() : undefined;
    });
    expect(latest).toMatchObject({
      id: requested,
      based_on_run_id: runId,
      explanation: 'decided for SLA 30',
    });
    expect(latest.configuration).toMatchObject({ num_workers: 4 });
  });

  it('leaves the recommendation alone when only how or when it is applied changes', async () => {
    const project = (await h.request('POST', '/api/v1/projects', { name: 'mode-only' })).json();
    await processedFixtureRun(h, project.id, 'run-1');
    const before = await recommendationsOf(project.id);

    const patched = await h.request('PATCH', `/api/v1/projects/${project.id}`, {
      settings: { applyMode: 'approve-learning' },
    });
    expect(patched.status).toBe(200);
    expect(patched.json().decided_again).toBeNull();
    // a settings change that asks for a recommendation queues it before the answer
    expect(await recommendationsOf(project.id)).toEqual(before);
  });

  it('asks for nothing while the project has no recommendation in force', async () => {
    const project = (await h.request('POST', '/api/v1/projects', { name: 'not-run-yet' })).json();

    const patched = await h.request('PATCH', `/api/v1/projects/${project.id}`, {
      settings: { slaMinutes: 45 },
    });

    expect(patched.status).toBe(200);
    expect(patched.json().decided_again).toBeNull();
    expect(await recommendationsOf(project.id)).toEqual([]);
  });
});
