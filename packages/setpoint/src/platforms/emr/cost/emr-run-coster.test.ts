import { describe, expect, it } from 'vitest';
import { usdOf } from '../../../../../../tests/support/run-costs.js';
import { createCostModel } from '../../../cost/cost-model.js';
import { shippedCatalog } from '../../../pricing/catalog/shipped-catalog.js';
import { createPriceCatalog } from '../../../pricing/price-catalog.js';
import type { EmrRunReport } from '../runs/emr-run-report.js';
import { EmrRunCoster, emrRunCost, emrRunOverhead } from './emr-run-coster.js';

// Golden tests: each expected figure is the arithmetic from the catalog's list prices, written out.
// us-east-1 on-demand: m5.xlarge $0.192/h, m5.2xlarge $0.384/h, r5.xlarge $0.252/h.
// EMR fee: 25% of the us-east-1 on-demand price: m5.xlarge $0.048/h, m5.2xlarge $0.096/h, r5.xlarge $0.063/h.
// r5 spot (default model, expected saving 64%): $0.252 × 0.36 = $0.09072/h; range saving 50%–75%.
// EBS per GB-month over 730 h: gp2 $0.10, gp3 $0.08. Root volume 15 GiB gp2 on every instance.

const model = createCostModel(createPriceCatalog([shippedCatalog]));
const t0 = Date.UTC(2026, 2, 2, 6, 0, 0);
const hour = 3_600_000;
const root = (15 * 0.1) / 730; // $/h of one 15 GiB gp2 root volume

function report(overrides: Partial<EmrRunReport> = {}): EmrRunReport {
  return {
    platform: 'emr',
    region: 'us-east-1',
    cluster: {
      id: 'j-GOLDEN0000001',
      name: 'nightly-orders',
      releaseLabel: 'emr-7.2.0',
      transient: true,
      logUri: 's3://emr-logs/',
      tags: {},
      createdAt: t0,
      readyAt: t0 + 8 * 60_000,
      endedAt: t0 + hour,
      state: 'TERMINATED',
      rootVolumeGb: null,
    },
    step: {
      id: 's-GOLDEN0000001',
      name: 'orders-etl',
      state: 'COMPLETED',
      startedAt: t0 + 8 * 60_000,
      endedAt: t0 + hour - 60_000,
    },
    shape: {
      kind: 'instance-groups',
      groups: [
        { role: 'MASTER', instanceType: 'm5.xlarge', count: 1, market: 'ON_DEMAND', volumes: [] },
        {
          role: 'CORE',
          instanceType: 'm5.2xlarge',
          count: 2,
          market: 'ON_DEMAND',
          volumes: [
            { volumeType: 'gp3', sizeGb: 64 },
            { volumeType: 'gp3', sizeGb: 64 },
          ],
        },
        { role: 'TASK', instanceType: 'r5.xlarge', count: 1, market: 'SPOT', volumes: [] },
      ],
      managedScaling: null,
    },
    instances: [
      {
        id: 'ci-1',
        role: 'MASTER',
        instanceType: 'm5.xlarge',
        market: 'ON_DEMAND',
        createdAt: t0,
        endedAt: t0 + hour,
        volumes: [],
      },
      ...[2, 3].map((n) => ({
        id: `ci-${n}`,
        role: 'CORE' as const,
        instanceType: 'm5.2xlarge',
        market: 'ON_DEMAND' as const,
        createdAt: t0,
        endedAt: t0 + hour,
        volumes: [
          { volumeType: 'gp3', sizeGb: 64 },
          { volumeType: 'gp3', sizeGb: 64 },
        ],
      })),
      // A task instance that joined after 30 min (a resize) and ran to the end.
      {
        id: 'ci-4',
        role: 'TASK',
        instanceType: 'r5.xlarge',
        market: 'SPOT',
        createdAt: t0 + hour / 2,
        endedAt: t0 + hour,
        volumes: [],
      },
    ],
    scope: 'cluster',
    eventLog: { location: 's3://spark-events/apps/application_1_0001', applicationId: 'application_1_0001' },
    ...overrides,
  };
}

describe('EMR run cost from the instance timeline', () => {
  it('a transient cluster: EC2 by instance and market + EMR fee + EBS over each instance’s own span', () => {
    const cost = emrRunCost(model, report());
    // EC2: primary 1 h × $0.192 + 2 core × 1 h × $0.384 + task 0.5 h × $0.09072 (spot, expected)
    const compute = 0.192 + 2 * 0.384 + 0.5 * 0.09072;
    // EMR fee: 1 h × $0.048 + 2 × 1 h × $0.096 + 0.5 h × $0.063
    const emrFee = 0.048 + 2 * 0.096 + 0.5 * 0.063;
    // EBS: roots 3 × 1 h + 0.5 h (15 GiB gp2), core data 2 instances × 2 × 64 GiB gp3 × 1 h
    const storage = 3.5 * root + (2 * 2 * 64 * 0.08) / 730;
    expect(usdOf(cost, 'compute')).toBeCloseTo(compute, 9);
    expect(usdOf(cost, 'platform_fee', 'emr_fee')).toBeCloseTo(emrFee, 9);
    expect(usdOf(cost, 'storage')).toBeCloseTo(storage, 9);
    expect(cost.total).toBeCloseTo(compute + emrFee + storage, 9);
    expect(usdOf(cost, 'platform_fee', 'dbu')).toBe(0);
    // the spot range: saving 75% (low) to 50% (high) on the task instance only
    expect(cost.low).toBeCloseTo(cost.total - 0.5 * 0.09072 + 0.5 * 0.252 * 0.25, 9);
    expect(cost.high).toBeCloseTo(cost.total - 0.5 * 0.09072 + 0.5 * 0.252 * 0.5, 9);
    expect(cost.spotSimulated).toBe(true);
    expect(cost.nodeHours).toBeCloseTo(3.5, 9);
  });

  it('splits the cost: the Spark application’s span scales with runtime, the rest of the launch is overhead', () => {
    // The application ran 10:00–40:00 after the cluster's 06:00 creation (the cluster lived an hour).
    const application = { startTime: t0 + 10 * 60_000, endTime: t0 + 40 * 60_000 };
    const total = emrRunCost(model, report()).total;
    const overhead = emrRunOverhead(model, report(), application, total);
    // inside: primary and 2 core for 0.5 h each; the task instance joined at 30:00, so 10 min of it
    const inside =
      0.5 * (0.192 + 0.048 + root) +
      2 * 0.5 * (0.384 + 0.096 + root + (2 * 64 * 0.08) / 730) +
      (10 / 60) * (0.09072 + 0.063 + root);
    expect(overhead?.seconds).toBe(30 * 60);
    expect(overhead?.usd).toBeCloseTo(total - inside, 9);
    // no application times in the event log: the step's window stands for it (08:00–59:00)
    const byStep = emrRunOverhead(model, report(), { startTime: null, endTime: null }, total);
    expect(byStep?.seconds).toBe(9 * 60);
  });

  it('per-second billing with a one-minute minimum per instance', () => {
    const cost = emrRunCost(
      model,
      report({
        instances: [
          // 90 s: billed 90 s
          {
            id: 'ci-1',
            role: 'MASTER',
            instanceType: 'm5.xlarge',
            market: 'ON_DEMAND',
            createdAt: t0,
            endedAt: t0 + 90_000,
            volumes: [],
          },
          // 20 s: billed the 60 s minimum
          {
            id: 'ci-2',
            role: 'CORE',
            instanceType: 'm5.xlarge',
            market: 'ON_DEMAND',
            createdAt: t0,
            endedAt: t0 + 20_000,
            volumes: [],
          },
        ],
      }),
    );
    const hours = 90 / 3600 + 60 / 3600;
    expect(usdOf(cost, 'compute')).toBeCloseTo(hours * 0.192, 12);
    expect(usdOf(cost, 'platform_fee', 'emr_fee')).toBeCloseTo(hours * 0.048, 12);
    expect(usdOf(cost, 'storage')).toBeCloseTo(hours * root, 12);
  });

  it('a step on a shared cluster is charged each instance’s overlap with the step', () => {
    const cost = emrRunCost(model, report({ scope: 'step' }));
    // step: 8 min → 59 min = 51 min; the task instance overlaps from 30 min: 29 min
    const full = 51 / 60;
    const task = 29 / 60;
    expect(usdOf(cost, 'compute')).toBeCloseTo(full * (0.192 + 2 * 0.384) + task * 0.09072, 9);
    expect(usdOf(cost, 'platform_fee', 'emr_fee')).toBeCloseTo(full * (0.048 + 2 * 0.096) + task * 0.063, 9);
  });

  it('a configured root volume size replaces the 15 GiB default', () => {
    const base = report();
    const cost = emrRunCost(model, { ...base, cluster: { ...base.cluster, rootVolumeGb: 100 } });
    expect(usdOf(cost, 'storage')).toBeCloseTo((3.5 * 100 * 0.1) / 730 + (2 * 2 * 64 * 0.08) / 730, 9);
  });

  it('refuses a run whose cluster has not ended, and a volume type without a price', async () => {
    const base = report();
    expect(() => emrRunCost(model, { ...base, cluster: { ...base.cluster, endedAt: null } })).toThrow(
      /cluster j-GOLDEN0000001 has not ended/,
    );
    const io2 = report({
      instances: [
        {
          id: 'ci-1',
          role: 'MASTER',
          instanceType: 'm5.xlarge',
          market: 'ON_DEMAND',
          createdAt: t0,
          endedAt: t0 + hour,
          volumes: [{ volumeType: 'io2', sizeGb: 100, iops: 4000 }],
        },
      ],
    });
    expect(() => emrRunCost(model, io2)).toThrow(/io2/);
    const coster = new EmrRunCoster(createPriceCatalog([shippedCatalog]));
    await expect(coster.cost({ clusterReport: null } as never)).rejects.toThrow(/cluster report/);
    const application = { startTime: t0 + 10 * 60_000, endTime: t0 + 40 * 60_000 };
    const priced = await coster.cost({ clusterReport: report(), profile: { application } } as never);
    expect(priced.components.map((c) => [c.kind, c.fee, c.description])).toEqual([
      ['compute', null, 'm5.xlarge, on-demand'],
      ['compute', null, 'm5.2xlarge, on-demand'],
      ['compute', null, 'r5.xlarge, spot'],
      ['platform_fee', 'emr_fee', 'EMR fee, m5.xlarge'],
      ['platform_fee', 'emr_fee', 'EMR fee, m5.2xlarge'],
      ['platform_fee', 'emr_fee', 'EMR fee, r5.xlarge'],
      ['storage', null, 'gp2 volumes'],
      ['storage', null, 'gp3 volumes'],
    ]);
    expect(priced.components.every((c) => c.platform === 'emr' && c.billed_by === 'cloud')).toBe(true);
    expect(priced.totalUsd).toBeCloseTo(
      priced.components.reduce((sum, c) => sum + c.usd, 0),
      12,
    );
    expect(priced.overhead?.seconds).toBe(30 * 60);
  });
});
