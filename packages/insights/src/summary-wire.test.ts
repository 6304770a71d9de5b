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

it('sums spend in the period by cloud and DBU and presents the organization summary', () => {
  const lines = (cloud: number, dbu: number) => [
    { item: 'cloud compute', usd: cloud },
    { item: 'Databricks DBUs (1.00 DBU)', usd: dbu },
  ];
  const spend = spendInPeriod(
    [
      { startedAt: 100, cost: { totalUsd: 3, lines: lines(2, 1) } },
      { startedAt: 199, cost: { totalUsd: 5, lines: lines(1, 4) } },
      { startedAt: 200, cost: { totalUsd: 50, lines: lines(25, 25) } },
      { startedAt: 99, cost: { totalUsd: 50, lines: lines(25, 25) } },
      { startedAt: 150, cost: null },
    ],
    100,
    200,
  );
  expect(spend).toEqual({ cloudUsd: 3, dbuUsd: 5, totalUsd: 8 });
  const wire = presentOrganizationSummary({ from: 100, to: 200, spend, roi: organizationRoi([null]) });
  expect(organizationSummaryWireSchema.parse(wire)).toEqual(wire);
  expect(wire.spend).toEqual({ cloud_usd: 3, dbu_usd: 5, total_usd: 8 });
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
