import type { Kysely, KyselyPlugin } from 'kysely';
import { createCostModel } from 'setpoint/cost/cost-model';
import { observedConfigurations } from 'setpoint/optimizer/observed-configurations';
import type { PipelineDependencies } from 'setpoint/pipeline/pipeline-context';
import { recommendStep } from 'setpoint/pipeline/steps/recommend-step';
import { costSpecOf } from 'setpoint/platforms/databricks/cluster-shape/cost-spec';
import { DatabricksRecommender } from 'setpoint/platforms/databricks/recommender/databricks-recommender';
import { shippedCatalog } from 'setpoint/pricing/catalog/shipped-catalog';
import { createPriceCatalog } from 'setpoint/pricing/price-catalog';
import { type OptimizerPassInput, runOptimizerPass } from 'setpoint/service/recommender/optimizer-pass';
import { createRepositories } from 'setpoint/service/repositories';
import { pruneRuns } from 'setpoint/service/runs/run-retention';
import type { Database } from 'setpoint/store/database-schema';
import type { StoreConnection } from 'setpoint/store/open-database';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { onePlatform } from '../support/one-platform.js';
import { runRow } from '../support/run-rows.js';
import { describeOnBothStores } from '../support/store-contract.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const windowRuns = 10;
const dayMs = 86_400_000;
const firstDay = 1_700_000_000_000;
const gib = 2 ** 30;
const catalog = createPriceCatalog([shippedCatalog]);
const nodeTypes = shippedCatalog.instanceTypes;
const costModel = createCostModel(catalog);
const workspace = {
  id: 'ws',
  platform: 'databricks',
  cloud: 'aws',
  region: 'us-east-1',
  planType: 'premium',
  computeType: 'jobs',
} as const;
/** The three configurations the job's runs take in turn. */
const workerCounts = [4, 8, 16];

/** Run `i` of a CPU-bound job on m5.xlarge workers, with a few percent of noise in runtime and input. */
function analyzedRun(projectId: string, i: number) {
  const workers = workerCounts[i % workerCounts.length] as number;
  const inputBytes = Math.round(100 * gib * (1 + 0.08 * Math.cos(i)));
  const runtimeS =
    (90 + (400 * 60) / (workers * 4)) * (1 + 0.05 * Math.sin(3 * i)) * (inputBytes / (100 * gib));
  const shape = {
    cloud: 'aws',
    workerNodeType: 'm5.xlarge',
    driverNodeType: 'm5.xlarge',
    workers,
    autoscale: null,
    market: 'on-demand',
    firstOnDemand: 0,
    photon: false,
  } as const;
  const usdPerHour = costModel
    .rateCluster(costSpecOf(shape, { region: 'us-east-1', plan: 'premium', compute: 'jobs' }))
    .usdPerHour(workers);
  const profile = {
    application: { durationMs: runtimeS * 1000, exitCode: null },
    analysis: { wallTimeMs: runtimeS * 1000, driverTimeMs: 0, criticalPathMs: runtimeS * 50 },
    executors: { maxConcurrent: workers, coresPerExecutor: 4 },
    stageCount: 2,
    stages: ['scan', 'aggregate'].map((name, stageId) => ({
      stageId,
      name,
      numTasks: 200,
      tasks: 200,
      executorRunTimeMs: 1_000_000,
      peakExecutionMemoryBytes: 2 ** 28 * 200,
    })),
    totals: {
      tasks: 400,
      failedJobs: 0,
      inputBytes,
      executorRunTimeMs: 3_000_000,
      executorCpuTimeMs: 0.5 * workers * 4 * runtimeS * 1000,
      jvmGcTimeMs: 60_000,
      shuffleFetchWaitTimeMs: 30_000,
      memoryBytesSpilled: 0,
      diskBytesSpilled: 0,
    },
    whatIf: [],
  };
  const facts = {
    source: 'cluster_report',
    cloud: 'aws',
    region: 'us-east-1',
    nodeTypeId: 'm5.xlarge',
    driverNodeTypeId: 'm5.xlarge',
    workers,
    autoscale: null,
    photon: false,
    availability: 'ON_DEMAND',
    sparkVersion: '14.3.x-scala2.12',
  };
  const createdAt = firstDay + i * dayMs;
  return runRow({
    id: `${projectId}-run-${String(i).padStart(3, '0')}`,
    project_id: projectId,
    external_run_id: `ext-${i}`,
    pipeline_state: 'DONE',
    status: 'SUCCESS',
    // the model profile is what a recommendation reads; the profile itself only has to exist
    profile: '{}',
    model_profile: JSON.stringify(profile),
    cost: JSON.stringify({
      currency: 'USD',
      totalUsd: (usdPerHour.expected * runtimeS) / 3600,
      lines: [],
    }),
    cluster_config: JSON.stringify({ config: null, facts }),
    input_bytes: inputBytes,
    created_at: createdAt,
    updated_at: createdAt,
  });
}

/** Counts the rows of the largest single query result: folding must read pages, not the history. */
class LargestResult implements KyselyPlugin {
  rows = 0;
  transformQuery: KyselyPlugin['transformQuery'] = (args) => args.node;
  transformResult: KyselyPlugin['transformResult'] = async (args) => {
    this.rows = Math.max(this.rows, args.result.rows.length);
    return args.result;
  };
}

function summaryTests(open: () => Promise<StoreConnection>) {
  let store: StoreConnection;
  let sequence = 0;

  beforeAll(async () => {
    store = await open();
  });
  afterAll(async () => {
    await store?.close();
  });

  async function seed(projectId: string, from: number, to: number) {
    const db: Kysely<Database> = store.db;
    if (from === 0)
      await db
        .insertInto('projects')
        .values({ id: projectId, name: projectId, description: null, created_at: 0, updated_at: 0 })
        .execute();
    const rows = [];
    for (let i = from; i < to; i++) rows.push(analyzedRun(projectId, i));
    await db.insertInto('runs').values(rows).execute();
  }

  /** Generates a recommendation for the project's newest run (or one asked for `basedOn`) with a window of `window` runs. */
  async function recommend(projectId: string, window: number, basedOn?: string) {
    const largest = new LargestResult();
    const repositories = createRepositories(store.db.withPlugin(largest));
    const passes: OptimizerPassInput[] = [];
    const recommender = new DatabricksRecommender({
      catalog,
      nodeTypes,
      prior: null,
      optimizerPass: async (input) => {
        passes.push(input);
        return runOptimizerPass(input);
      },
    });
    const deps = {
      runs: repositories.runs,
      projectRecords: repositories.projects,
      recommendationRecords: repositories.recommendations,
      learningSummaries: repositories.learningSummaries,
      workspaces: { facts: async () => workspace },
      platforms: onePlatform({ recommender }),
      recommendationWindowRuns: window,
    } satisfies Partial<PipelineDependencies>;
    const [newest] = await repositories.runs.analyzedWindow(projectId, { since: 0, limit: 1 });
    sequence += 1;
    const id = `${projectId}-rec-${sequence}`;
    await repositories.recommendations.insertPending({
      id,
      projectId,
      basedOnRunId: basedOn ?? newest?.id ?? '',
      requestedBy: 'test',
      idempotencyKey: null,
      now: Date.now(),
    });
    largest.rows = 0;
    await recommendStep(deps as unknown as PipelineDependencies)({ recommendationId: id, pinned: !!basedOn });
    const rec = await repositories.recommendations.find(id);
    const pass = passes[0] as OptimizerPassInput;
    const observed = observedConfigurations(
      pass.request.observations,
      (candidateId) => {
        const index = pass.pool.findIndex((candidate) => candidate.id === candidateId);
        return index < 0 ? undefined : index;
      },
      pass.request.summarized,
    );
    // what the runtime model conditions on, per configuration
    const model: Record<string, { runs: number; meanLog: number; scatter: number }> = {};
    for (const entry of observed) {
      const candidate = pass.pool[entry.index];
      if (candidate)
        model[candidate.id] = { runs: entry.runs, meanLog: entry.meanLog, scatter: entry.scatter };
    }
    return {
      rec,
      model,
      largestRead: largest.rows,
      summary: await repositories.learningSummaries.find(projectId),
    };
  }

  function expectSameModel(
    actual: Record<string, { runs: number; meanLog: number; scatter: number }>,
    expected: Record<string, { runs: number; meanLog: number; scatter: number }>,
  ) {
    expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
    for (const [id, entry] of Object.entries(expected)) {
      expect(actual[id]?.runs).toBe(entry.runs);
      expect(actual[id]?.meanLog).toBeCloseTo(entry.meanLog, 9);
      expect(actual[id]?.scatter).toBeCloseTo(entry.scatter, 7);
    }
  }

  it(`learns from 40 runs on 3 configurations through a ${windowRuns}-run window as from all of them`, async () => {
    await seed('long', 0, 40);
    const bounded = await recommend('long', windowRuns);
    expect(bounded.rec?.state).toBe('SUCCESS');
    // 30 runs folded, in pages no larger than the window
    expect(bounded.summary?.foldedRuns).toBe(30);
    expect(bounded.summary?.marker.id).toBe('long-run-029');
    expect(bounded.largestRead).toBeLessThanOrEqual(windowRuns);
    const unbounded = await recommend('long', 1000);
    expect(Object.values(unbounded.model).map((entry) => entry.runs)).toEqual([14, 13, 13]);
    expectSameModel(bounded.model, unbounded.model);
    // the explanation says how many of the runs it learned from were summarized
    expect(bounded.rec?.decision?.basis).toMatchObject({ runs: 40, configurations: 3, summarizedRuns: 30 });
    expect(bounded.rec?.explanation).toContain('40 runs of this job (30 of them summarized)');
    expect(unbounded.rec?.decision?.basis.summarizedRuns).toBeUndefined();
    // a request naming an older run: its window (runs 26–35) starts before the summary ends, so it is not read
    const older = await recommend('long', windowRuns, 'long-run-035');
    expect(older.rec?.decision?.basis).toMatchObject({ runs: 10 });
    expect(older.rec?.decision?.basis.summarizedRuns).toBeUndefined();
    expect(older.summary?.foldedRuns).toBe(30);
  });

  it('discards the summary at a learning reset and learns from the runs since it', async () => {
    await seed('reset', 0, 30);
    expect((await recommend('reset', windowRuns)).summary?.foldedRuns).toBe(20);
    const resetAt = firstDay + 18 * dayMs;
    await store.db
      .updateTable('projects')
      .set({ learning_reset_at: resetAt })
      .where('id', '=', 'reset')
      .execute();
    const after = await recommend('reset', windowRuns);
    // runs 18–29 since the reset: 2 folded anew, 10 in the window
    expect(after.summary).toMatchObject({ learningSince: resetAt, foldedRuns: 2 });
    expect(after.summary?.marker.id).toBe('reset-run-019');
    expect(after.rec?.decision?.basis).toMatchObject({ runs: 12, summarizedRuns: 2 });
  });

  it('keeps the runs retention finds after the fold marker until a recommendation folds them', async () => {
    await seed('kept', 0, 20);
    expect((await recommend('kept', windowRuns)).summary?.marker.id).toBe('kept-run-009');
    // five more runs arrive; no recommendation for them yet: runs 10–14 have left the window unfolded
    await seed('kept', 20, 25);
    const repositories = createRepositories(store.db);
    const retention = {
      retention: repositories.runRetention,
      runs: repositories.runs,
      learningSummaries: repositories.learningSummaries,
      blobs: { deleteBundle: async () => undefined },
      audit: repositories.audit,
      windowRuns,
    };
    await pruneRuns(retention, 1, firstDay + 1000 * dayMs);
    const left = async () =>
      (
        await store.db
          .selectFrom('runs')
          .select('id')
          .where('project_id', '=', 'kept')
          .orderBy('created_at')
          .execute()
      ).map((row) => Number(row.id.slice(-3)));
    // folded runs 0–9 go but the newest recommendation's run (19); 10–14 wait to be folded
    expect(await left()).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24]);
    const next = await recommend('kept', windowRuns);
    expect(next.summary).toMatchObject({ foldedRuns: 15 });
    expect(next.rec?.decision?.basis).toMatchObject({ runs: 25, summarizedRuns: 15 });
    await pruneRuns(retention, 1, firstDay + 1000 * dayMs);
    expect(await left()).toEqual([15, 16, 17, 18, 19, 20, 21, 22, 23, 24]);
  });

  it('folds a backlog of 5,000 runs that never had a recommendation page by page', async () => {
    for (let from = 0; from < 5000; from += 500) await seed('backlog', from, from + 500);
    const backlog = await recommend('backlog', windowRuns);
    expect(backlog.summary?.foldedRuns).toBe(4990);
    expect(backlog.largestRead).toBeLessThanOrEqual(windowRuns);
    expect(backlog.rec?.decision?.basis).toMatchObject({ runs: 5000, summarizedRuns: 4990 });
  });

  it('stores a fold only over the summary it started from, so two folds at once never count a run twice', async () => {
    await seed('race', 0, 1);
    const summaries = createRepositories(store.db).learningSummaries;
    const summary = (marker: string, foldedRuns: number) => ({
      projectId: 'race',
      learningSince: 0,
      marker: { createdAt: firstDay, id: marker },
      foldedRuns,
      statistics: {
        configurations: {},
        segment: { referenceStages: null, inputs: null, tasks: null, perByte: {} },
      },
    });
    expect(await summaries.advance(undefined, summary('a', 1))).toBe(true);
    // a second first fold, and a fold from a summary that has moved on since, are refused
    expect(await summaries.advance(undefined, summary('b', 1))).toBe(false);
    expect(await summaries.advance(summary('a', 1), summary('c', 2))).toBe(true);
    expect(await summaries.advance(summary('a', 1), summary('d', 2))).toBe(false);
    expect(await summaries.find('race')).toMatchObject({ foldedRuns: 2, marker: { id: 'c' } });
    await summaries.discardStale('race', 0);
    expect(await summaries.find('race')).toBeDefined();
    await summaries.discardStale('race', firstDay);
    expect(await summaries.find('race')).toBeUndefined();
  });
}

describeOnBothStores('learning summary', summaryTests);
