import type { PipelineDependencies } from 'setpoint/pipeline/pipeline-context';
import { recommendStep } from 'setpoint/pipeline/steps/recommend-step';
import type { RecommendationInput, Recommender } from 'setpoint/service/recommender/recommender';
import { createRepositories } from 'setpoint/service/repositories';
import type { StoreConnection } from 'setpoint/store/open-database';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { onePlatform } from '../support/one-platform.js';
import { runRow } from '../support/run-rows.js';
import { describeOnBothStores } from '../support/store-contract.js';

const day = 86_400_000;
const firstRun = 1_700_000_000_000;
const cost = JSON.stringify({ totalUsd: 1, components: [] });

/** A promise with its resolver: the test decides when a step that waits on it goes on. */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/**
 * Runs of one project processed at once: the order of the pipeline's steps is the test's, never the clock's.
 * The recommender says LEARNING while it has seen one run and MONITORING from two, and can be held inside
 * its computation (as a slow fit on a busy worker is) until the test lets it finish.
 */
function raceTests(open: () => Promise<StoreConnection>) {
  let store: StoreConnection;
  let project = 0;

  beforeAll(async () => {
    store = await open();
  });

  afterAll(async () => {
    await store?.close();
  });

  function pipeline(projectId: string) {
    const repositories = createRepositories(store.db);
    const ready: string[] = [];
    const holds = new Map<string, { entered: ReturnType<typeof gate>; release: ReturnType<typeof gate> }>();
    const recommender: Recommender = {
      async recommend(input: RecommendationInput) {
        const runs = input.runs.map((run) => run.id);
        const hold = holds.get(runs.join(','));
        if (hold) {
          hold.entered.open();
          await hold.release.opened;
        }
        return {
          phase: runs.length < 2 ? 'LEARNING' : 'MONITORING',
          configuration: { basedOn: input.basedOnRunId, runs },
          prediction: { runtimeMinutes: { low: 1, mid: 1, high: 1 }, costUsd: { low: 1, mid: 1, high: 1 } },
          explanation: `learned from ${runs.join(', ')}`,
        };
      },
    };
    const deps = {
      runs: repositories.runs,
      projectRecords: repositories.projects,
      recommendationRecords: repositories.recommendations,
      workspaces: { facts: async () => null },
      platforms: onePlatform({ recommender }),
      recommendationWindowRuns: 50,
      onRecommendationReady: async (_projectId: string, recommendationId: string) => {
        ready.push(recommendationId);
      },
    } satisfies Partial<PipelineDependencies>;
    const step = recommendStep(deps as unknown as PipelineDependencies);
    const runId = (index: number) => `${projectId}-run-${index}`;
    return {
      repositories,
      ready,
      step,
      runId,
      /** A run of the project, created `index` days after the first; analyzed (profiled and costed) or not yet. */
      async addRun(index: number, analyzed: boolean) {
        await store.db
          .insertInto('runs')
          .values(
            runRow({
              id: runId(index),
              project_id: projectId,
              external_run_id: `ext-${index}`,
              pipeline_state: analyzed ? 'DONE' : 'COSTING',
              model_profile: analyzed ? JSON.stringify({ stages: [] }) : null,
              cost: analyzed ? cost : null,
              created_at: firstRun + index * day,
              updated_at: firstRun + index * day,
            }),
          )
          .execute();
      },
      /** The cost step finished a run that was still on its way. */
      async analyze(index: number) {
        await store.db
          .updateTable('runs')
          .set({ pipeline_state: 'DONE', model_profile: JSON.stringify({ stages: [] }), cost })
          .where('id', '=', runId(index))
          .execute();
      },
      /** What the model-update step of a processed run does: a PENDING recommendation keyed by the run. */
      async request(index: number, at: number) {
        return repositories.recommendations.insertPending({
          id: `${projectId}-rec-for-${index}`,
          projectId,
          basedOnRunId: runId(index),
          requestedBy: 'pipeline',
          idempotencyKey: `run:${runId(index)}`,
          now: at,
        });
      },
      /** Holds the recommender when it is given exactly these runs, until released. */
      hold(indexes: number[]) {
        const hold = { entered: gate(), release: gate() };
        holds.set(indexes.map(runId).join(','), hold);
        return hold;
      },
      async project() {
        return repositories.projects.find(projectId);
      },
    };
  }

  async function newProject(): Promise<string> {
    project += 1;
    const projectId = `race-${project}`;
    await store.db
      .insertInto('projects')
      .values({ id: projectId, name: projectId, description: null, created_at: 0, updated_at: 0 })
      .execute();
    return projectId;
  }

  it('the recommendation requested last learns from both runs when the newer run was processed first', async () => {
    const projectId = await newProject();
    const loop = pipeline(projectId);
    // run 1 started first and is still being costed; run 2 is processed and asks first
    await loop.addRun(1, false);
    await loop.addRun(2, true);
    await loop.request(2, firstRun + 3 * day);
    await loop.step({ recommendationId: `${projectId}-rec-for-2` });
    // then run 1 is processed and asks: its recommendation is the one requested last
    await loop.analyze(1);
    await loop.request(1, firstRun + 3 * day + 1);
    await loop.step({ recommendationId: `${projectId}-rec-for-1` });

    const latest = await loop.repositories.recommendations.latestSuccessful(projectId);
    // it learned from both runs, and says it is based on the newest of them, not on the run that asked
    expect(latest?.configuration).toEqual({ basedOn: loop.runId(2), runs: [loop.runId(1), loop.runId(2)] });
    expect(latest?.basedOnRunId).toBe(loop.runId(2));
    expect(latest?.phase).toBe('MONITORING');
    expect((await loop.project())?.phase).toBe('MONITORING');
    expect(loop.ready).toEqual([`${projectId}-rec-for-2`, `${projectId}-rec-for-1`]);
  });

  it('a recommendation computed on an older window that finishes last is history: it moves nothing and is not handed on', async () => {
    const projectId = await newProject();
    const loop = pipeline(projectId);
    await loop.addRun(1, true);
    await loop.addRun(2, false);
    // run 1's recommendation is being computed on run 1 alone when run 2 is processed
    await loop.request(1, firstRun + 3 * day);
    const held = loop.hold([1]);
    const older = loop.step({ recommendationId: `${projectId}-rec-for-1` });
    await held.entered.opened;
    await loop.analyze(2);
    await loop.request(2, firstRun + 3 * day + 1);
    await loop.step({ recommendationId: `${projectId}-rec-for-2` });
    expect(loop.ready).toEqual([`${projectId}-rec-for-2`]);
    // run 1's computation finishes last
    held.release.open();
    await older;

    const stale = await loop.repositories.recommendations.find(`${projectId}-rec-for-1`);
    expect(stale).toMatchObject({ state: 'SUCCESS', phase: 'LEARNING', basedOnRunId: loop.runId(1) });
    // the project keeps the decision made on both runs: its phase, its newest recommendation, its list
    expect(loop.ready).toEqual([`${projectId}-rec-for-2`]);
    expect((await loop.project())?.phase).toBe('MONITORING');
    expect((await loop.repositories.recommendations.latestSuccessful(projectId))?.id).toBe(
      `${projectId}-rec-for-2`,
    );
    const listed = await loop.repositories.recommendations.page(projectId, { limit: 10, offset: 0 });
    expect(listed.items.map((rec) => rec.id)).toEqual([`${projectId}-rec-for-2`, `${projectId}-rec-for-1`]);
  });

  it('a request that names an older run learns from the runs up to it and never replaces the newest', async () => {
    const projectId = await newProject();
    const loop = pipeline(projectId);
    await loop.addRun(1, true);
    await loop.addRun(2, true);
    await loop.request(2, firstRun + 3 * day);
    await loop.step({ recommendationId: `${projectId}-rec-for-2` });
    await loop.repositories.recommendations.insertPending({
      id: `${projectId}-asked`,
      projectId,
      basedOnRunId: loop.runId(1),
      requestedBy: 'api-key:test',
      idempotencyKey: null,
      now: firstRun + 4 * day,
    });
    await loop.step({ recommendationId: `${projectId}-asked`, pinned: true });

    const asked = await loop.repositories.recommendations.find(`${projectId}-asked`);
    expect(asked?.configuration).toEqual({ basedOn: loop.runId(1), runs: [loop.runId(1)] });
    expect(loop.ready).toEqual([`${projectId}-rec-for-2`]);
    expect((await loop.project())?.phase).toBe('MONITORING');
    expect((await loop.repositories.recommendations.latestSuccessful(projectId))?.id).toBe(
      `${projectId}-rec-for-2`,
    );
  });
}

describeOnBothStores('recommendations of runs processed at once', raceTests);
