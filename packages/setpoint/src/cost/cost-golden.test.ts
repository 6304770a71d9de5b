import { describe, expect, it } from 'vitest';
import { feeUnitPrice, feeUnits, usdOf } from '../../../../tests/support/run-costs.js';
import { databricksBilling } from '../platforms/databricks/cluster-shape/billing.js';
import { emrBilling } from '../platforms/emr/cost/emr-billing.js';
import { shippedCatalog } from '../pricing/catalog/shipped-catalog.js';
import { organizationPricingSchema } from '../pricing/overrides.js';
import { createPriceCatalog } from '../pricing/price-catalog.js';
import { type CatalogLayer, catalogLayerSchema } from '../pricing/schema.js';
import type { ClusterCostSpec } from './cluster-spec.js';
import { createCostModel } from './cost-model.js';
import { estimateClusterCost } from './estimate.js';
import { cloudOnlyBilling } from './platform-billing.js';
import { runCost } from './run-cost.js';

// Golden tests: every expected figure is written out as the arithmetic from catalog list prices
// (m5.xlarge us-east-1 $0.192/h, 0.69 DBU/h; Standard_DS3_v2 westus2 $0.229/h, 0.75 DBU/h;
// AWS Premium Jobs $0.15/DBU, Azure Premium Jobs $0.30/DBU; gp3 $0.08/GB-month, 730 h/month).

const model = createCostModel(createPriceCatalog([shippedCatalog]));

const awsJobs: ClusterCostSpec = {
  cloud: 'aws',
  region: 'us-east-1',
  billing: databricksBilling({ plan: 'premium', compute: 'jobs', photon: false }),
  driverNodeType: 'm5.xlarge',
  workerNodeType: 'm5.xlarge',
  market: 'on-demand',
  firstOnDemand: 1,
  volumesPerNode: [],
};

describe('estimated cost of a hypothetical cluster', () => {
  it('AWS on-demand fixed cluster: m5.xlarge us-east-1 Premium Jobs, 1 driver + 8 workers, 1 h', () => {
    const estimate = estimateClusterCost(model, awsJobs, { kind: 'fixed', workers: 8 }, 1);
    expect(usdOf(estimate, 'compute')).toBeCloseTo(9 * 0.192, 9);
    expect(feeUnits(estimate, 'dbu')).toBeCloseTo(9 * 0.69, 9);
    expect(feeUnitPrice(estimate, 'dbu')).toBe(0.15);
    expect(usdOf(estimate, 'platform_fee', 'dbu')).toBeCloseTo(9 * 0.69 * 0.15, 9);
    expect(estimate.total).toBeCloseTo(9 * 0.192 + 9 * 0.69 * 0.15, 9);
    expect(estimate.low).toBeCloseTo(estimate.total, 9);
    expect(estimate.high).toBeCloseTo(estimate.total, 9);
    expect(estimate.nodes).toEqual({ driver: 1, workers: 8 });
    expect(usdOf(estimate, 'platform_fee', 'emr_fee')).toBe(0);
    expect(usdOf(estimate, 'storage')).toBe(0);
  });

  it('Azure: Standard_DS3_v2 westus2 Premium Jobs, 1 driver + 4 workers, 2 h (short VM name accepted)', () => {
    const spec: ClusterCostSpec = {
      ...awsJobs,
      cloud: 'azure',
      region: 'westus2',
      driverNodeType: 'DS3_v2',
      workerNodeType: 'Standard_DS3_v2',
    };
    const estimate = estimateClusterCost(model, spec, { kind: 'fixed', workers: 4 }, 2);
    expect(usdOf(estimate, 'compute')).toBeCloseTo(5 * 0.229 * 2, 9);
    expect(feeUnits(estimate, 'dbu')).toBeCloseTo(5 * 0.75 * 2, 9);
    expect(usdOf(estimate, 'platform_fee', 'dbu')).toBeCloseTo(5 * 0.75 * 2 * 0.3, 9);
    expect(estimate.total).toBeCloseTo(5 * 0.229 * 2 + 5 * 0.75 * 2 * 0.3, 9);
  });

  it('Photon: DBU/h per node doubles (default multiplier 2) at the same $/DBU', () => {
    const photon: ClusterCostSpec = {
      ...awsJobs,
      billing: databricksBilling({ plan: 'premium', compute: 'jobs', photon: true }),
    };
    const estimate = estimateClusterCost(model, photon, { kind: 'fixed', workers: 8 }, 1);
    expect(feeUnits(estimate, 'dbu')).toBeCloseTo(9 * 0.69 * 2, 9);
    expect(feeUnitPrice(estimate, 'dbu')).toBe(0.15);
    expect(estimate.total).toBeCloseTo(9 * 0.192 + 9 * 0.69 * 2 * 0.15, 9);
  });

  it('Photon uses a published per-node Photon rate when an import provides one', () => {
    const imported: CatalogLayer = catalogLayerSchema.parse({
      name: 'calculator',
      dbuRates: [
        {
          cloud: 'aws',
          nodeType: 'm5.xlarge',
          photonDbuPerHour: 1.5,
          effectiveDate: '2025-01-01',
          source: 't',
        },
      ],
    });
    const withPhoton = createCostModel(createPriceCatalog([shippedCatalog, imported]));
    const photon: ClusterCostSpec = {
      ...awsJobs,
      billing: databricksBilling({ plan: 'premium', compute: 'jobs', photon: true }),
    };
    const estimate = estimateClusterCost(withPhoton, photon, { kind: 'fixed', workers: 8 }, 1);
    expect(feeUnits(estimate, 'dbu')).toBeCloseTo(9 * 1.5, 9);
    // The standard rate still comes from the shipped catalog.
    expect(
      feeUnits(estimateClusterCost(withPhoton, awsJobs, { kind: 'fixed', workers: 8 }, 1), 'dbu'),
    ).toBeCloseTo(9 * 0.69, 9);
  });

  it('spot workers (driver on-demand) with the default m5 spot model: savings 50% / 62% / 72%', () => {
    const spot: ClusterCostSpec = { ...awsJobs, market: 'spot' };
    const estimate = estimateClusterCost(model, spot, { kind: 'fixed', workers: 8 }, 1);
    expect(usdOf(estimate, 'compute')).toBeCloseTo(0.192 + 8 * 0.192 * (1 - 0.62), 9);
    expect(estimate.low).toBeCloseTo(0.192 + 8 * 0.192 * (1 - 0.72) + 9 * 0.69 * 0.15, 9);
    expect(estimate.high).toBeCloseTo(0.192 + 8 * 0.192 * (1 - 0.5) + 9 * 0.69 * 0.15, 9);
    expect(usdOf(estimate, 'platform_fee', 'dbu')).toBeCloseTo(9 * 0.69 * 0.15, 9); // DBUs do not depend on the market
    expect(estimate.spotSimulated).toBe(true);
  });

  it('spot from imported price history is not simulated and uses its min/mean/max', () => {
    const history = catalogLayerSchema.parse({
      name: 'spot history',
      spotPrices: [
        {
          cloud: 'aws',
          region: 'us-east-1',
          instanceType: 'm5.xlarge',
          usdPerHour: 0.07,
          minUsdPerHour: 0.06,
          maxUsdPerHour: 0.09,
          effectiveDate: '2025-01-01',
          source: 't',
        },
      ],
    });
    const observed = createCostModel(createPriceCatalog([shippedCatalog, history]));
    const estimate = estimateClusterCost(
      observed,
      { ...awsJobs, market: 'spot' },
      { kind: 'fixed', workers: 8 },
      1,
    );
    expect(usdOf(estimate, 'compute')).toBeCloseTo(0.192 + 8 * 0.07, 9);
    expect(estimate.low).toBeCloseTo(0.192 + 8 * 0.06 + 9 * 0.69 * 0.15, 9);
    expect(estimate.high).toBeCloseTo(0.192 + 8 * 0.09 + 9 * 0.69 * 0.15, 9);
    expect(estimate.spotSimulated).toBe(false);
  });

  it('spot with fallback: expected 10% of worker-hours on-demand; low all spot; high all on-demand', () => {
    const estimate = estimateClusterCost(
      model,
      { ...awsJobs, market: 'spot-with-fallback' },
      { kind: 'fixed', workers: 8 },
      1,
    );
    const expectedWorker = 0.9 * 0.192 * (1 - 0.62) + 0.1 * 0.192;
    expect(usdOf(estimate, 'compute')).toBeCloseTo(0.192 + 8 * expectedWorker, 9);
    expect(estimate.low).toBeCloseTo(0.192 + 8 * 0.192 * (1 - 0.72) + 9 * 0.69 * 0.15, 9);
    expect(estimate.high).toBeCloseTo(9 * 0.192 + 9 * 0.69 * 0.15, 9);
  });

  it('the optimizer hot path usdPerHour agrees with the full breakdown', () => {
    for (const market of ['on-demand', 'spot', 'spot-with-fallback'] as const) {
      const rate = model.rateCluster({
        ...awsJobs,
        market,
        firstOnDemand: 2,
        volumesPerNode: [{ type: 'gp3', sizeGb: 50, count: 1 }],
      });
      for (const workers of [0, 1, 5]) {
        const breakdown = rate.perHour(workers);
        const fast = rate.usdPerHour(workers);
        expect(fast.expected).toBeCloseTo(breakdown.total, 12);
        expect(fast.low).toBeCloseTo(breakdown.low, 12);
        expect(fast.high).toBeCloseTo(breakdown.high, 12);
      }
    }
    // m5.xlarge on-demand: 9 × (0.192 + 0.69 × 0.15) per hour with 8 workers
    expect(model.rateCluster(awsJobs).usdPerHour(8).expected).toBeCloseTo(9 * (0.192 + 0.69 * 0.15), 12);
  });

  it('first_on_demand > 1 keeps that many nodes (driver first) on-demand', () => {
    const spec: ClusterCostSpec = { ...awsJobs, market: 'spot', firstOnDemand: 3 };
    const estimate = estimateClusterCost(model, spec, { kind: 'fixed', workers: 8 }, 1);
    expect(usdOf(estimate, 'compute')).toBeCloseTo(3 * 0.192 + 6 * 0.192 * (1 - 0.62), 9);
  });

  it('EBS volumes: 2 × 100 GB gp3 per node with 4000 IOPS and 250 MiB/s, 9 nodes, 1 h', () => {
    const spec: ClusterCostSpec = {
      ...awsJobs,
      volumesPerNode: [{ type: 'gp3', sizeGb: 100, count: 2, iops: 4000, throughputMibps: 250 }],
    };
    const estimate = estimateClusterCost(model, spec, { kind: 'fixed', workers: 8 }, 1);
    // per disk-month: 100 GB × 0.08 + (4000 − 3000) IOPS × 0.005 + (250 − 125) MiB/s × 0.04 = 18
    expect(usdOf(estimate, 'storage')).toBeCloseTo(
      (9 * 2 * (100 * 0.08 + 1000 * 0.005 + 125 * 0.04)) / 730,
      9,
    );
    expect(estimate.total).toBeCloseTo(9 * 0.192 + (9 * 2 * 18) / 730 + 9 * 0.69 * 0.15, 9);
  });

  it('EBS gp2 and st1 in eu-west-1, and an Azure premium SSD billed at the tier that holds it', () => {
    const gp2 = estimateClusterCost(
      model,
      { ...awsJobs, region: 'eu-west-1', volumesPerNode: [{ type: 'gp2', sizeGb: 150, count: 1 }] },
      { kind: 'fixed', workers: 1 },
      3,
    );
    expect(usdOf(gp2, 'storage')).toBeCloseTo((2 * 150 * 0.11 * 3) / 730, 9);
    const st1 = estimateClusterCost(
      model,
      { ...awsJobs, volumesPerNode: [{ type: 'st1', sizeGb: 500, count: 1 }] },
      { kind: 'fixed', workers: 0 },
      1,
    );
    expect(usdOf(st1, 'storage')).toBeCloseTo((500 * 0.045) / 730, 9);
    const azure = estimateClusterCost(
      model,
      {
        ...awsJobs,
        cloud: 'azure',
        region: 'eastus',
        driverNodeType: 'Standard_DS3_v2',
        workerNodeType: 'Standard_DS3_v2',
        volumesPerNode: [{ type: 'premium-ssd', sizeGb: 200, count: 1 }],
      },
      { kind: 'fixed', workers: 1 },
      1,
    );
    expect(usdOf(azure, 'storage')).toBeCloseTo((2 * 38.02) / 730, 9); // 200 GB fits P15 (256 GiB)
  });

  it('autoscaling 2:10 with a 30-minute ramp for 2 h: low all at min, high all at max', () => {
    const estimate = estimateClusterCost(
      model,
      awsJobs,
      { kind: 'autoscale', min: 2, max: 10, rampMinutes: 30 },
      2,
    );
    // worker-hours: ramp (2 + 10) / 2 × 0.5 h = 3, then 10 × 1.5 h = 15 → 18; low 2 × 2 = 4; high 10 × 2 = 20
    const perNodeHour = 0.192 + 0.69 * 0.15;
    expect(estimate.total).toBeCloseTo((2 + 18) * perNodeHour, 9);
    expect(estimate.low).toBeCloseTo((2 + 4) * perNodeHour, 9);
    expect(estimate.high).toBeCloseTo((2 + 20) * perNodeHour, 9);
    expect(estimate.nodes.workers).toBeCloseTo(18 / 2, 9);
  });

  it('autoscaling whose ramp outlasts the run, and explicit worker steps', () => {
    const short = estimateClusterCost(
      model,
      awsJobs,
      { kind: 'autoscale', min: 2, max: 10, rampMinutes: 120 },
      1,
    );
    // climb of 8 workers over 2 h, cut after 1 h: 2 × 1 + 8 × 1² / (2 × 2) = 4 worker-hours
    expect(usdOf(short, 'compute')).toBeCloseTo((1 + 4) * 0.192, 9);
    const steps = estimateClusterCost(
      model,
      awsJobs,
      {
        kind: 'steps',
        steps: [
          { hours: 0.5, workers: 2 },
          { hours: 1, workers: 6 },
        ],
      },
      1.5,
    );
    expect(usdOf(steps, 'compute')).toBeCloseTo((1.5 + 0.5 * 2 + 1 * 6) * 0.192, 9);
  });

  it('the corpus nds_q88 Photon cluster: m6gd.xlarge driver + 2 × m6gd.2xlarge, us-west-2 Premium Jobs, 1 h', () => {
    const spec: ClusterCostSpec = {
      ...awsJobs,
      region: 'us-west-2',
      billing: databricksBilling({ plan: 'premium', compute: 'jobs', photon: true }),
      driverNodeType: 'm6gd.xlarge',
      workerNodeType: 'm6gd.2xlarge',
    };
    const estimate = estimateClusterCost(model, spec, { kind: 'fixed', workers: 2 }, 1);
    // VMs: 0.1808 + 2 × 0.3616; DBUs: (0.77 + 2 × 1.54) × 2 (Photon) = 7.70 DBU × $0.15
    expect(usdOf(estimate, 'compute')).toBeCloseTo(0.1808 + 2 * 0.3616, 9);
    expect(feeUnits(estimate, 'dbu')).toBeCloseTo((0.77 + 2 * 1.54) * 2, 9);
    expect(estimate.total).toBeCloseTo(0.1808 + 2 * 0.3616 + 7.7 * 0.15, 9);
  });

  it('EMR: EC2 + the EMR fee per instance-hour, no DBUs', () => {
    const emr: ClusterCostSpec = { ...awsJobs, billing: emrBilling };
    const estimate = estimateClusterCost(model, emr, { kind: 'fixed', workers: 4 }, 1);
    // m5.xlarge EMR fee: 25% of $0.192 = $0.048
    expect(usdOf(estimate, 'platform_fee', 'emr_fee')).toBeCloseTo(5 * 0.048, 9);
    expect(feeUnits(estimate, 'dbu')).toBe(0);
    expect(estimate.total).toBeCloseTo(5 * 0.192 + 5 * 0.048, 9);
  });
});

describe('typed components', () => {
  it('one per resource: machines by type and market, volumes by type, each fee by node type', () => {
    const spec: ClusterCostSpec = {
      ...awsJobs,
      market: 'spot',
      volumesPerNode: [{ type: 'gp3', sizeGb: 100, count: 1 }],
    };
    const estimate = estimateClusterCost(model, spec, { kind: 'fixed', workers: 2 }, 1);
    const row = (c: (typeof estimate.components)[number]) => [
      c.kind,
      c.fee,
      c.billed_by,
      c.description,
      c.unit,
      Number(c.quantity.toFixed(9)),
      Number((c.unit_price_usd ?? Number.NaN).toFixed(9)),
    ];
    expect(estimate.components.map(row)).toEqual([
      ['compute', null, 'cloud', 'm5.xlarge, on-demand', 'node-hour', 1, 0.192],
      ['compute', null, 'cloud', 'm5.xlarge, spot', 'node-hour', 2, Number((0.192 * (1 - 0.62)).toFixed(9))],
      ['platform_fee', 'dbu', 'platform', 'DBUs, m5.xlarge', 'DBU', 3 * 0.69, 0.15],
      // 3 nodes × 100 GB × 1 h at $0.08 per GB-month over 730 h
      ['storage', null, 'cloud', 'gp3 volumes', 'GB-hour', 300, Number((0.08 / 730).toFixed(9))],
    ]);
    expect(estimate.components.every((c) => c.platform === 'databricks' && c.cloud === 'aws')).toBe(true);
    const sum = (pick: (c: (typeof estimate.components)[number]) => number) =>
      estimate.components.reduce((total, c) => total + pick(c), 0);
    expect(sum((c) => c.usd)).toBeCloseTo(estimate.total, 12);
    expect(sum((c) => c.low_usd)).toBeCloseTo(estimate.low, 12);
    expect(sum((c) => c.high_usd)).toBeCloseTo(estimate.high, 12);
    // the spot range lives on the spot machines alone
    const spotMachines = estimate.components[1]!;
    expect(spotMachines.low_usd).toBeCloseTo(2 * 0.192 * (1 - 0.72), 12);
    expect(spotMachines.high_usd).toBeCloseTo(2 * 0.192 * (1 - 0.5), 12);
  });

  it('EMR: its fee is a platform fee in instance-hours, billed by the cloud', () => {
    const estimate = estimateClusterCost(
      model,
      { ...awsJobs, billing: emrBilling },
      { kind: 'fixed', workers: 4 },
      1,
    );
    const fee = estimate.components.find((c) => c.kind === 'platform_fee');
    expect(fee).toMatchObject({ fee: 'emr_fee', platform: 'emr', billed_by: 'cloud', unit: 'instance-hour' });
    expect(fee?.quantity).toBeCloseTo(5, 12);
    expect(fee?.unit_price_usd).toBeCloseTo(0.048, 12);
  });

  it('unit charges price the usage a timeline reports, and refuse a negative quantity', () => {
    const billing = {
      ...cloudOnlyBilling,
      unitCharges: [
        {
          usage: 'egress-gb',
          kind: 'network' as const,
          fee: null,
          description: 'data transfer out',
          unit: 'GB',
          usdPerUnit: 0.09,
          billedBy: 'cloud' as const,
        },
      ],
    };
    const node = {
      role: 'driver' as const,
      nodeType: 'm5.xlarge',
      startMs: 0,
      endMs: 3_600_000,
      market: 'on-demand' as const,
    };
    const timeline = { cloud: 'aws' as const, region: 'us-east-1', billing, nodes: [node] };
    const cost = runCost(model, { ...timeline, usage: { 'egress-gb': 10 } });
    expect(usdOf(cost, 'network')).toBeCloseTo(0.9, 12);
    expect(cost.total).toBeCloseTo(0.192 + 0.9, 12);
    expect(cost.low).toBeCloseTo(0.192 + 0.9, 12);
    expect(runCost(model, timeline).components.map((c) => c.kind)).toEqual(['compute']);
    expect(() => runCost(model, { ...timeline, usage: { 'egress-gb': -1 } })).toThrow(/egress-gb/);
  });
});

describe('actual cost of a run from its cluster timeline', () => {
  const t0 = Date.UTC(2026, 0, 1, 10, 0, 0);
  const minute = 60_000;

  it('a spot worker lost after 20 min and replaced 5 min later, with known spot prices', () => {
    const timeline = {
      cloud: 'aws' as const,
      region: 'us-east-1',
      billing: awsJobs.billing,
      nodes: [
        {
          role: 'driver' as const,
          nodeType: 'm5.xlarge',
          startMs: t0,
          endMs: t0 + 60 * minute,
          market: 'on-demand' as const,
        },
        {
          role: 'worker' as const,
          nodeType: 'm5.xlarge',
          startMs: t0,
          endMs: t0 + 60 * minute,
          market: 'on-demand' as const,
        },
        {
          role: 'worker' as const,
          nodeType: 'm5.xlarge',
          startMs: t0,
          endMs: t0 + 20 * minute,
          market: 'spot' as const,
          spotUsdPerHour: 0.07,
        },
        {
          role: 'worker' as const,
          nodeType: 'm5.xlarge',
          startMs: t0 + 25 * minute,
          endMs: t0 + 60 * minute,
          market: 'spot' as const,
          spotUsdPerHour: 0.08,
        },
      ],
    };
    const cost = runCost(model, timeline);
    const nodeHours = 1 + 1 + 20 / 60 + 35 / 60;
    expect(usdOf(cost, 'compute')).toBeCloseTo(0.192 + 0.192 + 0.07 * (20 / 60) + 0.08 * (35 / 60), 9);
    expect(feeUnits(cost, 'dbu')).toBeCloseTo(0.69 * nodeHours, 9);
    expect(cost.total).toBeCloseTo(usdOf(cost, 'compute') + 0.69 * nodeHours * 0.15, 9);
    expect(cost.low).toBeCloseTo(cost.total, 9);
    expect(cost.hours).toBeCloseTo(1, 9);
    expect(cost.nodeHours).toBeCloseTo(nodeHours, 9);

    // Instances are billed before the first poll sees them: 2–3 minutes each (2.5 expected), 4 instances.
    const withPreStart = runCost(model, timeline, { preStartMinutes: { low: 2, expected: 2.5, high: 3 } });
    const onDemandRate = 0.192 + 0.69 * 0.15;
    const extra = (minutes: number): number =>
      (minutes / 60) * (2 * onDemandRate + (0.07 + 0.69 * 0.15) + (0.08 + 0.69 * 0.15));
    expect(withPreStart.total).toBeCloseTo(cost.total + extra(2.5), 9);
    expect(withPreStart.low).toBeCloseTo(cost.total + extra(2), 9);
    expect(withPreStart.high).toBeCloseTo(cost.total + extra(3), 9);
  });

  it('a per-instance pre-start range overrides the run-wide one', () => {
    const node = {
      role: 'worker' as const,
      nodeType: 'm5.xlarge',
      startMs: t0,
      endMs: t0 + 60 * minute,
      market: 'on-demand' as const,
    };
    const cost = runCost(
      model,
      {
        cloud: 'aws',
        region: 'us-east-1',
        billing: cloudOnlyBilling,
        nodes: [node, { ...node, preStartMinutes: { low: 0, expected: 6, high: 12 } }],
      },
      { preStartMinutes: { low: 1, expected: 2, high: 3 } },
    );
    // hours: (1 + 2/60) + (1 + 6/60) expected; (1 + 1/60) + 1 low; (1 + 3/60) + (1 + 12/60) high
    expect(cost.total).toBeCloseTo((2 + 8 / 60) * 0.192, 9);
    expect(cost.low).toBeCloseTo((2 + 1 / 60) * 0.192, 9);
    expect(cost.high).toBeCloseTo((2 + 15 / 60) * 0.192, 9);
    expect(() =>
      runCost(model, {
        cloud: 'aws',
        region: 'us-east-1',
        billing: cloudOnlyBilling,
        nodes: [{ ...node, preStartMinutes: { low: 3, expected: 2, high: 1 } }],
      }),
    ).toThrow(/pre-start/);
  });

  it('a spot node without a known price gets the spot model range', () => {
    const cost = runCost(model, {
      cloud: 'aws',
      region: 'us-east-1',
      billing: cloudOnlyBilling,
      nodes: [
        { role: 'worker', nodeType: 'm5.xlarge', startMs: t0, endMs: t0 + 120 * minute, market: 'spot' },
      ],
    });
    expect(cost.total).toBeCloseTo(2 * 0.192 * (1 - 0.62), 9);
    expect(cost.low).toBeCloseTo(2 * 0.192 * (1 - 0.72), 9);
    expect(cost.high).toBeCloseTo(2 * 0.192 * (1 - 0.5), 9);
    expect(cost.spotSimulated).toBe(true);
  });

  it('a node that may have fallen back to on-demand ranges from spot low to on-demand', () => {
    const cost = runCost(model, {
      cloud: 'aws',
      region: 'us-east-1',
      billing: cloudOnlyBilling,
      nodes: [
        {
          role: 'worker',
          nodeType: 'm5.xlarge',
          startMs: t0,
          endMs: t0 + 60 * minute,
          market: 'spot-with-fallback',
        },
      ],
    });
    expect(cost.total).toBeCloseTo(0.9 * 0.192 * (1 - 0.62) + 0.1 * 0.192, 9);
    expect(cost.low).toBeCloseTo(0.192 * (1 - 0.72), 9);
    expect(cost.high).toBeCloseTo(0.192, 9);
  });

  it('EMR bills at least one minute per instance', () => {
    const cost = runCost(model, {
      cloud: 'aws',
      region: 'us-east-1',
      billing: emrBilling,
      nodes: [
        { role: 'worker', nodeType: 'm5.xlarge', startMs: t0, endMs: t0 + 10_000, market: 'on-demand' },
      ],
    });
    expect(cost.total).toBeCloseTo((0.192 + 0.048) / 60, 9);
  });
});

describe('organization overrides', () => {
  it('discounts are not catalog overrides: the catalog prices at list, discounts are organization settings', () => {
    // Discounts apply once, to the organization summary (service/organization/discounts.ts); a catalog that
    // discounted too would discount the organization figures twice.
    expect(() => organizationPricingSchema.parse({ cloudDiscountPercent: { aws: 10 } })).toThrow();
    expect(() => organizationPricingSchema.parse({ dbuDiscountPercent: 20 })).toThrow();
    const list = createCostModel(createPriceCatalog([shippedCatalog], organizationPricingSchema.parse({})));
    const estimate = estimateClusterCost(
      list,
      { ...awsJobs, volumesPerNode: [{ type: 'gp2', sizeGb: 73, count: 1 }] },
      { kind: 'fixed', workers: 8 },
      1,
    );
    expect(usdOf(estimate, 'compute')).toBeCloseTo(9 * 0.192, 9);
    expect(usdOf(estimate, 'storage')).toBeCloseTo((9 * 73 * 0.1) / 730, 9);
    expect(feeUnitPrice(estimate, 'dbu')).toBeCloseTo(0.15, 12);
  });

  it('custom $/DBU and custom instance prices replace list prices', () => {
    const overrides = organizationPricingSchema.parse({
      customDbuPrices: [{ cloud: 'aws', plan: 'premium', sku: 'jobs', usdPerDbu: 0.11 }],
      customInstancePrices: [{ cloud: 'aws', instanceType: 'm5.xlarge', usdPerHour: 0.15 }],
    });
    const custom = createCostModel(createPriceCatalog([shippedCatalog], overrides));
    const estimate = estimateClusterCost(custom, awsJobs, { kind: 'fixed', workers: 8 }, 1);
    expect(usdOf(estimate, 'compute')).toBeCloseTo(9 * 0.15, 9);
    expect(usdOf(estimate, 'platform_fee', 'dbu')).toBeCloseTo(9 * 0.69 * 0.11, 9);
  });

  it('the most specific custom $/DBU wins, whatever the order', () => {
    const overrides = organizationPricingSchema.parse({
      customDbuPrices: [
        { cloud: 'aws', usdPerDbu: 0.05 },
        { cloud: 'aws', plan: 'premium', sku: 'jobs', usdPerDbu: 0.12 },
        { cloud: 'aws', sku: 'jobs', usdPerDbu: 0.09 },
      ],
    });
    const catalog = createPriceCatalog([shippedCatalog], overrides);
    expect(catalog.dbuPrice('aws', 'us-east-1', 'premium', 'jobs').usdPerDbu).toBe(0.12);
    expect(catalog.dbuPrice('aws', 'us-east-1', 'enterprise', 'jobs').usdPerDbu).toBe(0.09);
    expect(catalog.dbuPrice('aws', 'us-east-1', 'premium', 'all-purpose').usdPerDbu).toBe(0.05);
  });
});
