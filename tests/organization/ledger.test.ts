import {
  type CostComponent,
  type CostTotals,
  costKinds,
  type ProjectResource,
  type SpendReportWire,
} from '@setpoint/api-contract';
import { spendWindow } from '@setpoint/insights';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from '../service/support/service-harness.js';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { costComponent, storedRunCost } from '../support/run-costs.js';
import { runRow } from '../support/run-rows.js';
import { describeFull } from '../support/tiers.js';

vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

const dayMs = 86_400_000;

interface LedgerRun {
  dayOffset: number;
  status: 'SUCCESS' | 'FAILED';
  onRecommendation: boolean;
  components: CostComponent[];
}

interface LedgerProject {
  platform: 'databricks' | 'emr' | null;
  cloud: 'aws' | 'azure';
  runs: LedgerRun[];
}

interface Discounts {
  aws_discount_pct: number;
  azure_discount_pct: number;
  dbu_discount_pct: number;
}

const componentOf = (project: Pick<LedgerProject, 'platform' | 'cloud'>) =>
  fc
    .record({
      kind: fc.constantFrom(...costKinds),
      usd: fc.integer({ min: 0, max: 5_000_000 }).map((microDollars) => microDollars / 1e6),
    })
    .map(({ kind, usd }) => {
      const platform = project.platform ?? 'databricks';
      const fee = kind === 'platform_fee' ? (platform === 'emr' ? 'emr_fee' : 'dbu') : null;
      return costComponent(kind, usd, {
        fee,
        platform,
        cloud: project.cloud,
        billed_by: fee === 'dbu' ? 'platform' : 'cloud',
        description: `${kind} ${fee ?? ''}`.trim(),
      });
    });

const projectArbitrary: fc.Arbitrary<LedgerProject> = fc
  .record({
    platform: fc.constantFrom<LedgerProject['platform']>('databricks', 'emr', null),
    cloud: fc.constantFrom<LedgerProject['cloud']>('aws', 'azure'),
  })
  .chain((where) =>
    fc.record({
      platform: fc.constant(where.platform),
      cloud: fc.constant(where.cloud),
      runs: fc.array(
        fc.record({
          // some runs fall before the 30-day window, the rest inside it
          dayOffset: fc.integer({ min: -40, max: 0 }),
          status: fc.constantFrom<LedgerRun['status']>('SUCCESS', 'SUCCESS', 'FAILED'),
          onRecommendation: fc.boolean(),
          components: fc.array(componentOf(where), { minLength: 1, maxLength: 4 }),
        }),
        { maxLength: 6 },
      ),
    }),
  );

const discountsArbitrary: fc.Arbitrary<Discounts> = fc.record({
  aws_discount_pct: fc.integer({ min: 0, max: 400 }).map((tenths) => tenths / 10),
  azure_discount_pct: fc.integer({ min: 0, max: 400 }).map((tenths) => tenths / 10),
  dbu_discount_pct: fc.integer({ min: 0, max: 400 }).map((tenths) => tenths / 10),
});

/** The rule written out once more, independently: who bills a component decides its discount. */
function paid(component: CostComponent, discounts: Discounts): number {
  const pct =
    component.billed_by === 'platform'
      ? discounts.dbu_discount_pct
      : component.cloud === 'azure'
        ? discounts.azure_discount_pct
        : discounts.aws_discount_pct;
  return component.usd * (1 - pct / 100);
}

/** Dollars by kind, by fee and by platform, the way a FinOps engineer would add up a spreadsheet. */
function expectedTotals(components: readonly CostComponent[], discounts: Discounts) {
  const byKind = Object.fromEntries(costKinds.map((kind) => [kind, 0])) as Record<string, number>;
  const byFee = new Map<string, number>();
  const byPlatform = new Map<string, number>();
  let total = 0;
  for (const component of components) {
    const usd = paid(component, discounts);
    total += usd;
    byKind[component.kind] = (byKind[component.kind] ?? 0) + usd;
    if (component.fee) byFee.set(component.fee, (byFee.get(component.fee) ?? 0) + usd);
    byPlatform.set(component.platform, (byPlatform.get(component.platform) ?? 0) + usd);
  }
  return { total, byKind, byFee, byPlatform };
}

function expectSameTotals(actual: CostTotals, expected: ReturnType<typeof expectedTotals>): void {
  expect(actual.total_usd).toBeCloseTo(expected.total, 6);
  for (const kind of costKinds) expect(actual.by_kind[kind]).toBeCloseTo(expected.byKind[kind] ?? 0, 6);
  for (const { fee, usd } of actual.platform_fees) expect(usd).toBeCloseTo(expected.byFee.get(fee) ?? 0, 6);
  for (const [fee, usd] of expected.byFee) {
    if (usd > 1e-9) expect(actual.platform_fees.map((entry) => entry.fee)).toContain(fee);
  }
  for (const { platform, usd } of actual.platforms)
    expect(usd).toBeCloseTo(expected.byPlatform.get(platform) ?? 0, 6);
}

/** The sums of several totals, kind by kind. */
function summed(totals: readonly CostTotals[]) {
  return {
    total: totals.reduce((sum, entry) => sum + entry.total_usd, 0),
    byKind: Object.fromEntries(
      costKinds.map((kind) => [kind, totals.reduce((sum, entry) => sum + entry.by_kind[kind], 0)]),
    ) as Record<string, number>,
    byFee: new Map<string, number>(),
    byPlatform: new Map<string, number>(),
  };
}

function ledgerContract(open: () => Promise<Harness>) {
  let h: Harness;
  let workspaces: Record<'databricks' | 'emr', string>;

  beforeAll(async () => {
    h = await open();
    const now = Date.now();
    const workspace = (platform: 'databricks' | 'emr') => ({
      id: `wsp_ledger_${platform}`,
      name: `ledger ${platform}`,
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
    });
    await h.services.store.db
      .insertInto('workspaces')
      .values([workspace('databricks'), workspace('emr')])
      .execute();
    workspaces = { databricks: 'wsp_ledger_databricks', emr: 'wsp_ledger_emr' };
  });

  afterAll(async () => {
    await h?.close();
  });

  /** Writes the ledger's projects and runs as the pipeline would have stored them. */
  async function seed(projects: readonly LedgerProject[], now: number): Promise<ProjectResource[]> {
    const created: ProjectResource[] = [];
    for (const [index, project] of projects.entries()) {
      const made = (await h.request('POST', '/api/v1/projects', { name: `ledger ${index}` })).json();
      if (project.platform) {
        await h.services.store.db
          .updateTable('projects')
          .set({ workspace_id: workspaces[project.platform] })
          .where('id', '=', made.id)
          .execute();
      }
      if (project.runs.length > 0) {
        await h.services.store.db
          .insertInto('runs')
          .values(
            project.runs.map((run, runIndex) => {
              const startedAt = now + run.dayOffset * dayMs - (runIndex + 1) * 60_000;
              return runRow({
                id: `run_${made.id}_${runIndex}`,
                project_id: made.id,
                external_run_id: `ext-${runIndex}`,
                pipeline_state: 'DONE',
                status: run.status,
                started_at: startedAt,
                ended_at: startedAt + 600_000,
                cost: JSON.stringify(storedRunCost(run.components)),
                // the first run is the baseline; later ones may run a recommendation
                recommendation_id: runIndex > 0 && run.onRecommendation ? 'rec_ledger' : null,
                created_at: startedAt,
                updated_at: startedAt,
              });
            }),
          )
          .execute();
      }
      created.push(made);
    }
    return created;
  }

  it('the organization spends what its projects spend, and they what their runs cost, kind by kind', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(projectArbitrary, { minLength: 1, maxLength: 4 }),
        discountsArbitrary,
        async (projects, discounts) => {
          const now = Date.now();
          expect((await h.request('PATCH', '/api/v1/organization/settings', discounts)).status).toBe(200);
          const created = await seed(projects, now);
          try {
            const { from, to } = spendWindow(now);
            const report: SpendReportWire = (
              await h.request('GET', `/api/v1/insights/spend?from=${from}&to=${to}`)
            ).json();
            const summary = (await h.request('GET', `/api/v1/insights/summary?from=${from}&to=${to}`)).json();
            const list: ProjectResource[] = (await h.request('GET', '/api/v1/projects?limit=500')).json()
              .items;

            // every run's components that started in the window, at the organization's prices
            const inWindow = projects.flatMap((project) =>
              project.runs.flatMap((run, runIndex) => {
                const startedAt = now + run.dayOffset * dayMs - (runIndex + 1) * 60_000;
                return startedAt >= from && startedAt < to ? run.components : [];
              }),
            );
            const expected = expectedTotals(inWindow, discounts);
            expectSameTotals(report.total, expected);
            expect(report.total.runs).toBe(
              projects.flatMap((project) =>
                project.runs.filter((run, r) => {
                  const startedAt = now + run.dayOffset * dayMs - (r + 1) * 60_000;
                  return startedAt >= from && startedAt < to;
                }),
              ).length,
            );
            // the summary's spend is the report's total; the projects add up to it, in the report and the list
            expect(summary.spend).toEqual(report.total);
            const sumOfProjects = summed(report.projects.map((project) => project.spend));
            const sumOfRows = summed(list.map((project) => project.summary!.spend));
            for (const sums of [sumOfProjects, sumOfRows]) {
              expect(sums.total).toBeCloseTo(report.total.total_usd, 6);
              for (const kind of costKinds)
                expect(sums.byKind[kind]).toBeCloseTo(report.total.by_kind[kind], 6);
            }
            // each project's own: its runs' components in the window
            for (const [index, project] of projects.entries()) {
              const line = report.projects.find((entry) => entry.project_id === created[index]!.id)!;
              expect(line.platform).toBe(project.platform);
              expectSameTotals(
                line.spend,
                expectedTotals(
                  project.runs.flatMap((run, runIndex) => {
                    const startedAt = now + run.dayOffset * dayMs - (runIndex + 1) * 60_000;
                    return startedAt >= from && startedAt < to ? run.components : [];
                  }),
                  discounts,
                ),
              );
            }
            // savings likewise: the organization's are its projects', in the report and in the list
            const savingsOf = (values: Array<number | null | undefined>) =>
              values.reduce<number>((sum, value) => sum + (value ?? 0), 0);
            expect(summary.roi.savings_to_date_usd).toBeCloseTo(
              savingsOf(report.projects.map((project) => project.savings_to_date_usd)),
              6,
            );
            expect(summary.roi.savings_to_date_usd).toBeCloseTo(
              savingsOf(list.map((project) => project.summary?.savings?.to_date_usd)),
              6,
            );
            expect(summary.roi.projected_12_month_savings_usd).toBeCloseTo(
              savingsOf(list.map((project) => project.summary?.savings?.projected_12_month_usd)),
              4,
            );
          } finally {
            await h.services.store.db
              .deleteFrom('projects')
              .where(
                'id',
                'in',
                created.map((project) => project.id),
              )
              .execute();
          }
        },
      ),
      { numRuns: 12 },
    );
  });

  it('a $3 EMR run and a $5 Databricks run make an $8 organization, fees and all', async () => {
    await h.request('PATCH', '/api/v1/organization/settings', {
      aws_discount_pct: 0,
      azure_discount_pct: 0,
      dbu_discount_pct: 0,
    });
    const now = Date.now();
    const emr = costComponent('platform_fee', 1, { fee: 'emr_fee', platform: 'emr', billed_by: 'cloud' });
    const created = await seed(
      [
        {
          platform: 'emr',
          cloud: 'aws',
          runs: [
            {
              dayOffset: 0,
              status: 'SUCCESS',
              onRecommendation: false,
              components: [costComponent('compute', 2, { platform: 'emr' }), emr],
            },
          ],
        },
        {
          platform: 'databricks',
          cloud: 'aws',
          runs: [
            {
              dayOffset: 0,
              status: 'SUCCESS',
              onRecommendation: false,
              components: [costComponent('compute', 3), costComponent('platform_fee', 2, { fee: 'dbu' })],
            },
          ],
        },
      ],
      now,
    );
    const { from, to } = spendWindow(now);
    const spend: CostTotals = (
      await h.request('GET', `/api/v1/insights/summary?from=${from}&to=${to}`)
    ).json().spend;
    expect(spend.total_usd).toBeCloseTo(8, 9);
    expect(spend.by_kind).toMatchObject({ compute: 5, platform_fee: 3 });
    expect(spend.platform_fees).toEqual([
      { fee: 'dbu', usd: 2 },
      { fee: 'emr_fee', usd: 1 },
    ]);
    expect(spend.platforms).toEqual([
      { platform: 'databricks', usd: 5 },
      { platform: 'emr', usd: 3 },
    ]);
    await h.services.store.db
      .deleteFrom('projects')
      .where(
        'id',
        'in',
        created.map((project) => project.id),
      )
      .execute();
  });
}

describe('one ledger, on SQLite', () => {
  ledgerContract(() => createHarness());
});

describeFull('one ledger, on PostgreSQL', 'a PostgreSQL server (SETPOINT_TEST_PG_URL)', () => {
  let database: TestPostgresDatabase;
  beforeAll(async () => {
    database = await createTestPostgresDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });
  ledgerContract(() => createHarness({ databaseUrl: database.url }));
});
