import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CostComponent } from '@setpoint/api-contract';
import type { Kysely } from 'kysely';
import { projectSpends } from 'setpoint/service/insights/project-summaries';
import { listPrices } from 'setpoint/service/organization/discounts';
import { createProjectService } from 'setpoint/service/projects/project-service';
import { createRepositories } from 'setpoint/service/repositories';
import { migration0150 } from 'setpoint/store/migrations/0150-run-cost-components';
import { convertLegacyRunCost } from 'setpoint/store/migrations/legacy-run-cost';
import { openDatabase, type StoreConnection } from 'setpoint/store/open-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { runRow } from '../support/run-rows.js';
import { describeFull } from '../support/tiers.js';

// Costs exactly as the versions before typed components stored them.
const databricksLegacy = {
  currency: 'USD',
  totalUsd: 5,
  lines: [
    { item: 'cloud compute', usd: 3 },
    { item: 'cloud storage', usd: 0.5 },
    { item: 'Databricks DBUs (10.00 DBU)', usd: 1.5 },
    { item: 'total low', usd: 4.5 },
    { item: 'total high', usd: 6 },
  ],
};
const emrLegacy = {
  currency: 'USD',
  totalUsd: 3,
  lines: [
    { item: 'EC2 compute', usd: 2 },
    { item: 'EBS storage', usd: 0.25 },
    { item: 'EMR fee', usd: 0.75 },
    { item: 'total low', usd: 3 },
    { item: 'total high', usd: 3 },
  ],
  overhead: { seconds: 300, usd: 0.4 },
};
const billedLegacy = {
  currency: 'USD',
  totalUsd: 4.8,
  lines: [
    { item: 'cloud compute', usd: 3 },
    { item: 'Databricks DBUs as billed (12.00 DBU for the cluster)', usd: 1.8 },
    { item: 'total low', usd: 4.8 },
    { item: 'total high', usd: 4.8 },
    { item: 'estimated Databricks charge before the bill', usd: 2 },
  ],
};

const sumOf = (components: CostComponent[], pick: (c: CostComponent) => number) =>
  components.reduce((sum, c) => sum + pick(c), 0);

describe('stored run costs from before typed components', () => {
  it('become typed components with the same total and bounds, each kind where it belongs', () => {
    const databricks = convertLegacyRunCost(databricksLegacy, 'azure') as { components: CostComponent[] };
    expect(databricks).toMatchObject({ totalUsd: 5, lowUsd: 4.5, highUsd: 6 });
    expect(databricks.components.map((c) => [c.kind, c.fee, c.platform, c.cloud, c.usd])).toEqual([
      ['compute', null, 'databricks', 'azure', 3],
      ['storage', null, 'databricks', 'azure', 0.5],
      ['platform_fee', 'dbu', 'databricks', 'azure', 1.5],
    ]);
    expect(databricks.components[2]).toMatchObject({ quantity: 10, unit: 'DBU', unit_price_usd: 0.15 });
    // the range was the total's: it goes on the machines, so the components' bounds add up to it
    expect(sumOf(databricks.components, (c) => c.low_usd)).toBeCloseTo(4.5, 12);
    expect(sumOf(databricks.components, (c) => c.high_usd)).toBeCloseTo(6, 12);

    const emr = convertLegacyRunCost(emrLegacy, null) as { components: CostComponent[]; overhead: unknown };
    expect(emr.components.map((c) => [c.kind, c.fee, c.platform, c.billed_by])).toEqual([
      ['compute', null, 'emr', 'cloud'],
      ['storage', null, 'emr', 'cloud'],
      ['platform_fee', 'emr_fee', 'emr', 'cloud'],
    ]);
    expect(emr.overhead).toEqual({ seconds: 300, usd: 0.4 });

    const billed = convertLegacyRunCost(billedLegacy, 'aws') as { components: CostComponent[] };
    expect(billed.components).toHaveLength(2); // the kept estimate is the DBUs' estimated_usd, not a line
    expect(billed.components[1]).toMatchObject({ fee: 'dbu', usd: 1.8, estimated_usd: 2, quantity: 0 });
    expect(sumOf(billed.components, (c) => c.usd)).toBeCloseTo(4.8, 12);
  });

  it('a line no version wrote is kept as other; a typed cost is left alone', () => {
    const odd = convertLegacyRunCost({ totalUsd: 1, lines: [{ item: 'support plan', usd: 1 }] }, 'aws') as {
      components: CostComponent[];
    };
    expect(odd.components[0]).toMatchObject({ kind: 'other', usd: 1, description: 'support plan' });
    expect(convertLegacyRunCost({ ...odd }, 'aws')).toBeNull();
    expect(convertLegacyRunCost('not a cost', 'aws')).toBeNull();
  });
});

function migrationContract(open: () => Promise<StoreConnection>) {
  let store: StoreConnection;
  const runs = 520; // more than one batch

  beforeAll(async () => {
    store = await open();
  });

  afterAll(async () => {
    await store?.close();
  });

  it('rewrites every stored cost, keeps the totals, and a second pass changes nothing', async () => {
    const projects = createProjectService(createRepositories(store.db));
    const project = await projects.create({ name: 'legacy' }, 'test');
    await store.db
      .insertInto('runs')
      .values(
        Array.from({ length: runs }, (_, index) =>
          runRow({
            id: `run_legacy${String(index).padStart(4, '0')}`,
            project_id: project.id,
            external_run_id: `ext-${index}`,
            pipeline_state: 'DONE',
            status: 'SUCCESS',
            started_at: 1_000 + index,
            ended_at: 2_000 + index,
            cost: JSON.stringify(index % 2 === 0 ? databricksLegacy : emrLegacy),
            created_at: 1_000 + index,
            updated_at: 1_000 + index,
          }),
        ),
      )
      .execute();
    // the database is open (every migration ran); the rows above are what an older version left behind
    await migration0150().up(store.db as unknown as Kysely<unknown>);
    const read = async () =>
      (await store.db.selectFrom('runs').select(['id', 'cost']).orderBy('id').execute()).map((row) =>
        JSON.parse(row.cost ?? 'null'),
      );
    const after = await read();
    expect(after.every((cost) => Array.isArray(cost.components) && cost.lines === undefined)).toBe(true);
    expect(after.filter((cost) => cost.totalUsd === 5)).toHaveLength(runs / 2);

    // the organization's figures now count the EMR runs, fee included
    const [spend] = await projectSpends(
      createRepositories(store.db).runs,
      [project],
      { from: 0, to: 1e9 },
      listPrices,
    );
    expect(spend?.spend.total_usd).toBeCloseTo((runs / 2) * (5 + 3), 6);
    expect(spend?.spend.platform_fees).toEqual([
      { fee: 'dbu', usd: expect.closeTo((runs / 2) * 1.5, 6) },
      { fee: 'emr_fee', usd: expect.closeTo((runs / 2) * 0.75, 6) },
    ]);

    await migration0150().up(store.db as unknown as Kysely<unknown>);
    expect(await read()).toEqual(after);
  });
}

describe('the typed-cost migration on SQLite', () => {
  migrationContract(() => openDatabase({ dataDir: mkdtempSync(path.join(tmpdir(), 'setpoint-costs-')) }));
});

describeFull('the typed-cost migration on PostgreSQL', 'a PostgreSQL server (SETPOINT_TEST_PG_URL)', () => {
  let database: TestPostgresDatabase;
  beforeAll(async () => {
    database = await createTestPostgresDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });
  migrationContract(() => openDatabase({ databaseUrl: database.url, dataDir: '/nonexistent' }));
});
