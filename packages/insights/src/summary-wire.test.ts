import { organizationSummaryWireSchema, projectSummaryWireSchema } from '@setpoint/api-contract';
import { expect, it } from 'vitest';
import { dailyRuns, day, start } from '../../../tests/insights/run-builder.js';
import { clusterIdentity } from './cluster-identity.js';
import { summarizeProject } from './project-summary.js';
import { organizationRoi } from './roi.js';
import { spendInPeriod } from './spend.js';
import { presentOrganizationSummary, presentProjectSummary } from './summary-wire.js';

it('presents a project summary in the wire shape its schema accepts', () => {
  const runs = dailyRuns([
    { cost: 10, status: 'FAILED' },
    { cost: 10 },
    { cost: 8, rec: 'rec-1' },
    { status: 'FAILED' },
    { status: 'FAILED' },
  ]);
  const wire = presentProjectSummary(summarizeProject(runs, { now: start + 5 * day, slaMinutes: 30 }), {
    completedRuns: 1,
    requiredRuns: 3,
  });
  expect(projectSummaryWireSchema.parse(wire)).toEqual(wire);
  expect(wire.learning).toEqual({ completed_runs: 1, required_runs: 3 });
  expect(wire.roi?.savings_to_date_usd).toBeCloseTo(2, 12);
  expect(wire.insights[0]).toMatchObject({
    kind: 'repeated_failures',
    severity: 'critical',
    run_id: 'run-4',
  });
});

it('sums spend in the period by kind, fee and platform and presents the organization summary', () => {
  const cost = (platform: string, compute: number, fee: [string, number]) => ({
    components: [
      {
        kind: 'compute' as const,
        fee: null,
        platform,
        cloud: 'aws',
        billed_by: 'cloud' as const,
        usd: compute,
      },
      {
        kind: 'platform_fee' as const,
        fee: fee[0],
        platform,
        cloud: 'aws',
        billed_by: 'cloud' as const,
        usd: fee[1],
      },
    ],
  });
  const spend = spendInPeriod(
    [
      { startedAt: 100, cost: cost('databricks', 2, ['dbu', 1]) },
      { startedAt: 199, cost: cost('emr', 1, ['emr_fee', 4]) },
      { startedAt: 200, cost: cost('databricks', 25, ['dbu', 25]) },
      { startedAt: 99, cost: cost('emr', 25, ['emr_fee', 25]) },
      { startedAt: 150, cost: null },
    ],
    100,
    200,
  );
  expect(spend).toEqual({
    total_usd: 8,
    by_kind: { compute: 3, platform_fee: 5, storage: 0, network: 0, other: 0 },
    platform_fees: [
      { fee: 'emr_fee', usd: 4 },
      { fee: 'dbu', usd: 1 },
    ],
    platforms: [
      { platform: 'emr', usd: 5 },
      { platform: 'databricks', usd: 3 },
    ],
    runs: 2,
  });
  const wire = presentOrganizationSummary({ from: 100, to: 200, spend, roi: organizationRoi([null]) });
  expect(organizationSummaryWireSchema.parse(wire)).toEqual(wire);
  // a discount per component: half off what the platform fee is
  const discounted = spendInPeriod([{ startedAt: 100, cost: cost('emr', 2, ['emr_fee', 4]) }], 0, 200, (c) =>
    c.kind === 'platform_fee' ? 0.5 : 1,
  );
  expect(discounted.total_usd).toBe(4);
  expect(discounted.by_kind.platform_fee).toBe(2);
});

it('treats clusters with the same node types, size, engine and market as one configuration', () => {
  const facts = {
    nodeTypeId: 'm5.xlarge',
    driverNodeTypeId: 'm5.xlarge',
    workers: 4,
    photon: false,
    availability: 'ON_DEMAND',
  };
  expect(clusterIdentity(facts)).toBe(clusterIdentity({ ...facts }));
  expect(clusterIdentity(facts)).not.toBe(clusterIdentity({ ...facts, workers: 8 }));
  expect(clusterIdentity(facts)).not.toBe(clusterIdentity({ ...facts, availability: 'SPOT_WITH_FALLBACK' }));
  expect(clusterIdentity(null)).toBeNull();
});
