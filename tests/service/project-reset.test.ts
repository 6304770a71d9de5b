import type {
  RecommendationInput,
  RecommendationOutput,
  Recommender,
} from 'setpoint/service/recommender/recommender';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { processedFixtureRun } from './support/fixture-runs.js';
import { createHarness, type Harness, signedInHeaders } from './support/service-harness.js';

vi.setConfig({ testTimeout: 150_000, hookTimeout: 150_000 });

/** Records which runs each recommendation was computed from. */
class RecordingRecommender implements Recommender {
  readonly seenRunIds: string[][] = [];

  async recommend(input: RecommendationInput): Promise<RecommendationOutput> {
    this.seenRunIds.push(input.runs.map((run) => run.id));
    return {
      phase: input.project.phase,
      configuration: { node_type_id: 'i3.xlarge', num_workers: 2 },
      prediction: {
        runtimeMinutes: { low: 1, mid: 2, high: 3 },
        costUsd: { low: 1, mid: 2, high: 3 },
      },
      explanation: `from ${input.runs.length} runs`,
    };
  }
}

describe('POST /api/v1/projects/:id/reset on SQLite', () => {
  const recommender = new RecordingRecommender();
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness({ startWorkers: true, analysis: { recommender } });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('keeps the run history but learns only from runs after the reset', async () => {
    const project = (await h.request('POST', '/api/v1/projects', { name: 'reset-me' })).json();
    const before = await processedFixtureRun(h, project.id, 'run-1');
    expect((await h.request('GET', `/api/v1/projects/${project.id}`)).json().phase).toBe('LEARNING');

    const reset = await h.request('POST', `/api/v1/projects/${project.id}/reset`, {});

    expect(reset.status).toBe(200);
    expect(reset.json()).toMatchObject({ id: project.id, phase: 'LEARNING' });
    expect(reset.json().learning_reset_at).toBeGreaterThanOrEqual(project.created_at);
    const runs = (await h.request('GET', `/api/v1/projects/${project.id}/runs`)).json();
    expect(runs.items.map((run: { id: string }) => run.id)).toEqual([before]);
    const audit = (await h.request('GET', `/api/v1/projects/${project.id}/audit`)).json();
    expect(audit.items.at(-1)).toMatchObject({
      action: 'reset',
      actor: `api-key:${h.key.id}`,
      detail: { from: 'LEARNING', to: 'LEARNING' },
    });

    const after = await processedFixtureRun(h, project.id, 'run-2');

    expect(recommender.seenRunIds.at(0)).toEqual([before]);
    expect(recommender.seenRunIds.at(-1)).toEqual([after]);
    expect((await h.request('GET', `/api/v1/projects/${project.id}`)).json().phase).toBe('LEARNING');
  });

  it('answers 404 in the standard error shape for an unknown project', async () => {
    const response = await h.request('POST', '/api/v1/projects/prj_missing/reset', {});

    expect(response.status).toBe(404);
    expect(response.json().error).toMatchObject({
      code: 'PROJECT_NOT_FOUND',
      message: 'project prj_missing does not exist',
    });
  });
});

describe('project reset without workers', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness();
    await h.services.users.create('vic', 'viewer password 1', 'viewer');
    await h.services.users.create('eda', 'editor password 1', 'editor');
  });

  afterAll(async () => {
    await h?.close();
  });

  it('fails recommendations still pending as superseded and leaves a never-run project in setup', async () => {
    const project = (await h.request('POST', '/api/v1/projects', { name: 'pending' })).json();
    const pending = await h.services.recommendations.request(project.id, {
      actor: 'test',
      basedOnRunId: 'run_none',
    });

    const reset = await h.request('POST', `/api/v1/projects/${project.id}/reset`, {});

    expect(reset.json().phase).toBe('PENDING_SETUP');
    const rec = (
      await h.request('GET', `/api/v1/projects/${project.id}/recommendations/${pending.id}`)
    ).json();
    expect(rec).toMatchObject({ state: 'FAILURE', error: 'superseded: the project was reset' });
  });

  it('lets editors reset a project and refuses viewers', async () => {
    const project = (await h.request('POST', '/api/v1/projects', { name: 'roles' })).json();

    const viewer = await h.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${project.id}/reset`,
      headers: await signedInHeaders(h, 'vic', 'viewer password 1'),
    });
    const editor = await h.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${project.id}/reset`,
      headers: await signedInHeaders(h, 'eda', 'editor password 1'),
    });

    expect(viewer.statusCode).toBe(403);
    expect(editor.statusCode).toBe(200);
    expect(editor.json().learning_reset_at).toEqual(expect.any(Number));
  });
});
