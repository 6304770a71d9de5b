import type { CostTotals } from '@setpoint/api-contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from '../service/support/service-harness.js';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { costComponent, storedRunCost } from '../support/run-costs.js';
import { runRow } from '../support/run-rows.js';
import { describeFull } from '../support/tiers.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

/**
 * The organization's spend is every platform's: before costs were typed components, an EMR run's lines
 * ("EC2 compute", "EMR fee") were told apart by their text and fell out of the totals, so a $3 EMR run and
 * a $5 Databricks run made a $5 organization.
 */
function everyPlatformInTotals(open: () => Promise<Harness>) {
  let h: Harness;

  beforeAll(async () => {
    h = await open();
  });

  afterAll(async () => {
    await h?.close();
  });

  it('a $3 EMR run and a $5 Databricks run make an $8 organization, kind by kind, fee by fee', async () => {
    const now = Date.now();
    await h.services.store.db
      .insertInto('workspaces')
      .values(
        (['databricks', 'emr'] as const).map((platform) => ({
          id: `wsp_totals_${platform}`,
          name: `totals ${platform}`,
          platform,
          cloud: 'aws',
          region: 'us-east-1',
          host: null,
          plan_type: null,
          compute_type: null,
          credentials_ciphertext: null,
          webhook_credentials_ciphertext: null,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    const runs = {
      emr: [
        costComponent('compute', 1.5, { platform: 'emr', description: 'EC2 compute' }),
        costComponent('storage', 0.5, { platform: 'emr', description: 'EBS storage' }),
        costComponent('platform_fee', 1, {
          platform: 'emr',
          fee: 'emr_fee',
          billed_by: 'cloud',
          description: 'EMR fee',
        }),
      ],
      databricks: [
        costComponent('compute', 3),
        costComponent('platform_fee', 2, { fee: 'dbu', description: 'DBU' }),
      ],
    };
    for (const platform of ['emr', 'databricks'] as const) {
      const project = (await h.request('POST', '/api/v1/projects', { name: `totals ${platform}` })).json();
      await h.services.store.db
        .updateTable('projects')
        .set({ workspace_id: `wsp_totals_${platform}` })
        .where('id', '=', project.id)
        .execute();
      await h.services.store.db
        .insertInto('runs')
        .values(
          runRow({
            id: `run_totals_${platform}`,
            project_id: project.id,
            external_run_id: `ext-${platform}`,
            pipeline_state: 'DONE',
            status: 'SUCCESS',
            started_at: now - 3_600_000,
            ended_at: now - 3_000_000,
            cost: JSON.stringify(storedRunCost(runs[platform])),
            created_at: now - 3_600_000,
            updated_at: now - 3_000_000,
          }),
        )
        .execute();
    }

    const summary = (
      await h.request('GET', `/api/v1/insights/summary?from=${now - 86_400_000}&to=${now + 60_000}`)
    ).json();
    const spend = summary.spend as CostTotals;
    expect(spend.total_usd).toBeCloseTo(8, 9);
    expect(spend.runs).toBe(2);
    expect(spend.by_kind).toEqual({ compute: 4.5, platform_fee: 3, storage: 0.5, network: 0, other: 0 });
    expect(spend.platform_fees).toEqual([
      { fee: 'dbu', usd: 2 },
      { fee: 'emr_fee', usd: 1 },
    ]);
    expect(spend.platforms).toEqual([
      { platform: 'databricks', usd: 5 },
      { platform: 'emr', usd: 3 },
    ]);
  });
}

describe('every platform in the organization totals, on SQLite', () => {
  everyPlatformInTotals(() => createHarness());
});

describeFull('every platform in the organization totals, on PostgreSQL', 'a PostgreSQL server', () => {
  let database: TestPostgresDatabase;
  beforeAll(async () => {
    database = await createTestPostgresDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });
  everyPlatformInTotals(() => createHarness({ databaseUrl: database.url }));
});
