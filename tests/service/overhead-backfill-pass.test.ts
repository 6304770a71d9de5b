import type { RunCost } from 'setpoint/service/runs/run-records';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { runRow } from '../support/run-rows.js';
import { describeFull } from '../support/tiers.js';
import { createHarness, type Harness } from './support/service-harness.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

/** As costed before the split: a total, no overhead key. */
const costBeforeSplit = JSON.stringify({ totalUsd: 1.25, lines: [] });

/**
 * The start-up pass that adds the overhead to runs costed before the split reads those runs in batches
 * and, once it has seen them all, is recorded as finished: later starts do not scan the runs again.
 */
function backfillPassSuite(dialect: string, database: () => Promise<TestPostgresDatabase | undefined>) {
  let h: Harness;
  let pg: TestPostgresDatabase | undefined;

  beforeAll(async () => {
    pg = await database();
    // the workers' start runs the pass once on the empty database, as a new installation does
    h = await createHarness({ ...(pg ? { databaseUrl: pg.url } : {}), startWorkers: true });
  });
  afterAll(async () => {
    await pg?.drop();
  });
  afterAll(async () => {
    await h?.close();
  });

  const db = () => h.services.store.db;
  const passes = async () =>
    db().selectFrom('maintenance_passes').selectAll().where('name', '=', 'run-cost-overhead-split').execute();
  const costOf = async (id: string) => {
    const row = await db().selectFrom('runs').select('cost').where('id', '=', id).executeTakeFirstOrThrow();
    return JSON.parse(row.cost as string) as RunCost;
  };

  it(`${dialect}: marks every run in batches, records the pass once, and never scans again`, async () => {
    // a new installation has no run costed before the split: its first start finishes the pass
    await vi.waitFor(async () => expect((await passes()).map((pass) => pass.name)).toHaveLength(1), {
      timeout: 30_000,
    });
    const projectId = (await h.request('POST', '/api/v1/projects', { name: 'upgraded' })).json().id as string;
    // an upgraded database: five runs costed before the split (their cluster facts were never stored, so
    // no split can be recovered), one still being parsed; and the pass not yet finished
    const old = Array.from({ length: 5 }, (_, i) =>
      runRow({
        id: `old-${i}`,
        project_id: projectId,
        external_run_id: `old-${i}`,
        pipeline_state: 'DONE',
        profile: '{"stages":[]}',
        cluster_report: '{}',
        cost: costBeforeSplit,
        created_at: 1_000 + i,
        updated_at: 1_000 + i,
      }),
    );
    const parsing = runRow({
      id: 'parsing',
      project_id: projectId,
      external_run_id: 'parsing',
      pipeline_state: 'PARSING',
      cost: costBeforeSplit,
    });
    await db()
      .insertInto('runs')
      .values([...old, parsing])
      .execute();
    await db().deleteFrom('maintenance_passes').where('name', '=', 'run-cost-overhead-split').execute();

    // batches of two: three batches read all five
    expect(await h.services.pipeline.backfillRunOverhead(2)).toEqual({ split: 0, kept: 5 });
    for (const run of old) {
      const cost = await costOf(run.id);
      expect(cost.overhead).toBeNull();
      expect(cost.totalUsd).toBe(1.25);
    }
    expect((await costOf('parsing')).overhead).toBeUndefined();
    expect((await passes()).map((pass) => pass.name)).toEqual(['run-cost-overhead-split']);

    // finished: a run without the key (none can appear now that costing records it) is not even read
    await db()
      .insertInto('runs')
      .values(runRow({ ...old[0]!, id: 'late', external_run_id: 'late', created_at: 2_000 }))
      .execute();
    expect(await h.services.pipeline.backfillRunOverhead(2)).toEqual({ split: 0, kept: 0 });
    expect((await costOf('late')).overhead).toBeUndefined();
    expect(await passes()).toHaveLength(1);
  });
}

describe('the overhead backfill pass on SQLite', () => {
  backfillPassSuite('SQLite', async () => undefined);
});

describeFull('the overhead backfill pass on PostgreSQL', 'a PostgreSQL server (SETPOINT_TEST_PG_URL)', () => {
  backfillPassSuite('PostgreSQL', createTestPostgresDatabase);
});
