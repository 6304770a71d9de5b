import type { Kysely, KyselyPlugin } from 'kysely';
import type { PipelineDependencies } from 'setpoint/pipeline/pipeline-context';
import { recommendStep } from 'setpoint/pipeline/steps/recommend-step';
import type { RecommendationInput, Recommender } from 'setpoint/service/recommender/recommender';
import { createRepositories } from 'setpoint/service/repositories';
import type { Database, RecommendationsTable, RunsTable } from 'setpoint/store/database-schema';
import type { StoreConnection } from 'setpoint/store/open-database';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { onePlatform } from '../support/one-platform.js';
import { recommendationRow, runRow } from '../support/run-rows.js';
import { describeOnBothStores } from '../support/store-contract.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

/** A history far longer than the window: a daily job's eight years. */
const historyRuns = 3000;
const windowRuns = 50;
const cost = JSON.stringify({ totalUsd: 1, components: [] });

/** Counts the rows every query returns (what a step read from the database), and the profiles among them. */
class RowCounter implements KyselyPlugin {
  rows = 0;
  profiles = 0;
  transformQuery: KyselyPlugin['transformQuery'] = (args) => args.node;
  transformResult: KyselyPlugin['transformResult'] = async (args) => {
    this.rows += args.result.rows.length;
    for (const row of args.result.rows as Array<Record<string, unknown>>)
      if (typeof row.profile === 'string') this.profiles += 1;
    return args.result;
  };
}

async function seedProject(db: Kysely<Database>, projectId: string): Promise<string[]> {
  await db
    .insertInto('projects')
    .values({ id: projectId, name: projectId, description: null, created_at: 0, updated_at: 0 })
    .execute();
  const ids: string[] = [];
  for (let start = 0; start < historyRuns; start += 250) {
    const runs: RunsTable[] = [];
    const recommendations: RecommendationsTable[] = [];
    for (let i = start; i < Math.min(historyRuns, start + 250); i++) {
      const id = `${projectId}-run-${String(i).padStart(5, '0')}`;
      ids.push(id);
      // one run a day; every run's profile is a few hundred bytes here, megabytes in production
      const createdAt = 1_700_000_000_000 + i * 86_400_000;
      runs.push(
        runRow({
          id,
          project_id: projectId,
          external_run_id: `ext-${i}`,
          pipeline_state: 'DONE',
          profile: JSON.stringify({ run: i, stages: [], whole: 'profile' }),
          model_profile: JSON.stringify({ run: i, stages: [] }),
          cost,
          created_at: createdAt,
          updated_at: createdAt,
        }),
      );
      recommendations.push(
        recommendationRow({
          id: `${projectId}-rec-${i}`,
          project_id: projectId,
          idempotency_key: `run:${id}`,
          state: 'SUCCESS',
          phase: 'MONITORING',
          configuration: '{}',
          explanation: 'seeded',
          based_on_run_id: id,
          created_at: createdAt + 1,
        }),
      );
    }
    await db.insertInto('runs').values(runs).execute();
    await db.insertInto('recommendations').values(recommendations).execute();
  }
  return ids;
}

/** The recommendation step over a row-counting connection, with a recommender that records its input. */
function stepOver(db: Kysely<Database>, counter: RowCounter) {
  const repositories = createRepositories(db.withPlugin(counter));
  const inputs: RecommendationInput[] = [];
  const fleetSizes: number[][] = [];
  const recommender: Recommender = {
    async recommend(input) {
      inputs.push(input);
      // the fleet prior's relearning reads every other project's window
      const counts = await input.fleet?.load([...((await input.fleet?.runCounts()) ?? new Map()).keys()]);
      fleetSizes.push((counts ?? []).map((history) => history.runs.length));
      return {
        phase: 'MONITORING',
        configuration: {},
        prediction: { runtimeMinutes: { low: 1, mid: 1, high: 1 }, costUsd: { low: 1, mid: 1, high: 1 } },
        explanation: 'window test',
      };
    },
  };
  const deps = {
    runs: repositories.runs,
    projectRecords: repositories.projects,
    recommendationRecords: repositories.recommendations,
    workspaces: { facts: async () => null },
    platforms: onePlatform({ recommender }),
    recommendationWindowRuns: windowRuns,
  } satisfies Partial<PipelineDependencies>;
  return { step: recommendStep(deps as unknown as PipelineDependencies), inputs, fleetSizes, repositories };
}

function windowTests(open: () => Promise<StoreConnection>) {
  let store: StoreConnection;
  let runIds: string[];

  beforeAll(async () => {
    store = await open();
    runIds = await seedProject(store.db, 'long');
    await seedProject(store.db, 'neighbour');
  });

  afterAll(async () => {
    await store?.close();
  });

  async function generate(basedOnRunId: string, id: string, pinned = false) {
    const counter = new RowCounter();
    const { step, inputs, fleetSizes, repositories } = stepOver(store.db, counter);
    await repositories.recommendations.insertPending({
      id,
      projectId: 'long',
      basedOnRunId,
      requestedBy: 'test',
      idempotencyKey: null,
      now: Date.now(),
    });
    counter.rows = 0;
    await step({ recommendationId: id, pinned });
    const rec = await repositories.recommendations.find(id);
    return {
      rowsRead: counter.rows,
      profilesRead: counter.profiles,
      input: inputs[0],
      fleetSizes: fleetSizes[0],
      state: rec?.state,
    };
  }

  it(`reads at most the ${windowRuns}-run window of a ${historyRuns}-run history, with its past recommendations`, async () => {
    const newest = runIds.at(-1) as string;
    const { rowsRead, profilesRead, input, fleetSizes, state } = await generate(newest, 'rec-newest');
    expect(state).toBe('SUCCESS');
    expect(input?.runs.map((run) => run.id)).toEqual(runIds.slice(-windowRuns));
    expect(input?.recommendations.length).toBeLessThanOrEqual(windowRuns);
    // both projects' windows for the fleet prior, the project's window and past recommendations, and a
    // handful of single-row lookups: bounded by the window, not by the 6,000 runs in the database
    expect(fleetSizes).toEqual([windowRuns, windowRuns]);
    expect(rowsRead).toBeLessThanOrEqual(4 * windowRuns + 20);
    // what the model reads of each run, never a whole profile (a run's profile can weigh megabytes)
    expect(profilesRead).toBe(0);
    expect(input?.runs.at(-1)?.profile).toEqual({ run: historyRuns - 1, stages: [] });
  });

  it('judges an older run a request names on the window that ends at it', async () => {
    const older = runIds[1000] as string;
    const { rowsRead, profilesRead, input, state } = await generate(older, 'rec-older', true);
    expect(state).toBe('SUCCESS');
    expect(input?.basedOnRunId).toBe(older);
    expect(input?.runs.map((run) => run.id)).toEqual(runIds.slice(1000 - windowRuns + 1, 1001));
    expect(rowsRead).toBeLessThanOrEqual(4 * windowRuns + 20);
    expect(profilesRead).toBe(0);
  });
}

describeOnBothStores('recommendation learning window', windowTests);
