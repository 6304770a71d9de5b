import { defaultProjectSettings } from '@setpoint/api-contract';
import { describe, expect, it } from 'vitest';
import { createCostModel } from '../../../cost/cost-model.js';
import type { DriverEvidence } from '../../../eventlog/run-profile.js';
import { shippedCatalog } from '../../../pricing/catalog/shipped-catalog.js';
import { createPriceCatalog } from '../../../pricing/price-catalog.js';
import type { NewClusterSpec } from '../api/schema.js';
import { buildCandidateSpace } from './candidates.js';
import { describeShape, shapeOfCluster } from './cluster-shape.js';
import { costSpecOf } from './cost-spec.js';
import { driverHeadroom, driverNodeTypeFor, missingDriverSignal } from './driver-node-type.js';

const catalog = createPriceCatalog([shippedCatalog]);
const costModel = createCostModel(catalog);
const gib = 1024 ** 3;
const entryOf = (type: string) => {
  const entry = shippedCatalog.instanceTypes.find((e) => e.cloud === 'aws' && e.instanceType === type);
  if (!entry) throw new Error(`${type} is not in the shipped catalog`);
  return entry;
};

/** The job as it runs: 6 × m5d.xlarge with an r5d.2xlarge driver (64 GiB), on-demand. */
const baseCluster: NewClusterSpec = {
  spark_version: '15.4.x-scala2.12',
  node_type_id: 'm5d.xlarge',
  driver_node_type_id: 'r5d.2xlarge',
  num_workers: 6,
  aws_attributes: { availability: 'ON_DEMAND' },
};
const current = shapeOfCluster(baseCluster, 'aws');
/** The heap Databricks gives a driver as the emulator's log reports it: (0.3 × memory) / 0.6 + 300 MiB. */
const heapOf = (type: string) => entryOf(type).memoryGib * gib * 0.5 + 300 * 1024 ** 2;

function evidence(driver: Partial<DriverEvidence>): DriverEvidence {
  const heapBytes = heapOf('r5d.2xlarge');
  return {
    maxMemoryBytes: (heapBytes - 300 * 1024 ** 2) * 0.6,
    heapBytes,
    peakJvmHeapBytes: null,
    gcTimeMs: null,
    metricEvents: 0,
    largestStageResultBytes: 40_000,
    ...driver,
  };
}

function space(driver: DriverEvidence | undefined) {
  return buildCandidateSpace(
    catalog,
    shippedCatalog.instanceTypes,
    {
      cloud: 'aws',
      region: 'us-east-1',
      plan: 'premium',
      settings: { ...defaultProjectSettings(), spotPolicy: 'on-demand-only' },
      current,
      observed: [current],
      baseCluster,
      driverSignals: { evidence: driver, wallTimeMs: 600_000 },
    },
    costModel,
  );
}
const allowedDrivers = (built: ReturnType<typeof space>) => [
  ...new Set(built.entries.filter((entry) => entry.allowed).map((entry) => entry.shape.driverNodeType)),
];
const hourly = (driverNodeType: string) =>
  costModel
    .rateCluster(
      costSpecOf({ ...current, driverNodeType }, { region: 'us-east-1', plan: 'premium', compute: 'jobs' }),
    )
    .usdPerHour(current.workers).expected;

describe('the driver node type from the driver’s own signals', () => {
  it('shrinks an oversized driver to the cheapest type that holds its peak with room, on as many cores', () => {
    const peak = 2 * gib;
    const built = space(evidence({ peakJvmHeapBytes: peak, gcTimeMs: 900, metricEvents: 3 }));
    const drivers = allowedDrivers(built);
    expect(drivers).toHaveLength(1);
    const chosen = drivers[0]!;
    expect(chosen).not.toBe('r5d.2xlarge');
    // cheaper, never below the peak × headroom, never fewer cores, local disks like the driver it replaces
    expect(hourly(chosen)).toBeLessThan(hourly('r5d.2xlarge'));
    expect(heapOf(chosen)).toBeGreaterThanOrEqual(peak * driverHeadroom);
    expect(entryOf(chosen).vcpus).toBeGreaterThanOrEqual(entryOf('r5d.2xlarge').vcpus);
    expect(entryOf(chosen).localNvmeGb).toBeGreaterThan(0);
    // the cheapest such type: no other priced sibling that qualifies costs less
    const qualifying = shippedCatalog.instanceTypes.filter(
      (e) =>
        e.cloud === 'aws' &&
        /^[mcr]5d$/.test(e.family) &&
        e.vcpus >= 8 &&
        e.vcpus <= 32 &&
        heapOf(e.instanceType) >= peak * driverHeadroom,
    );
    for (const other of qualifying) expect(hourly(other.instanceType)).toBeGreaterThanOrEqual(hourly(chosen));
    // the written shape says so, and its price is the new driver's
    const entry = built.entries.find(
      (e) => e.allowed && e.shape.workers === 6 && e.shape.workerNodeType === 'm5d.xlarge' && !e.shape.photon,
    )!;
    expect(describeShape(entry.shape)).toMatch(
      new RegExp(
        `driver r5d\\.2xlarge → ${chosen.replace('.', '\\.')}: the driver's heap peaked at 2\\.0 GiB`,
      ),
    );
    expect(entry.candidate.priceUsdPerNodeHour * 6).toBeCloseTo(hourly(chosen), 6);
  });

  it('grows a driver that ran near its heap, to the cheapest type that holds its peak with room', () => {
    const heap = heapOf('r5d.2xlarge');
    const peak = 0.9 * heap;
    const drivers = allowedDrivers(space(evidence({ peakJvmHeapBytes: peak, metricEvents: 2 })));
    expect(drivers).toHaveLength(1);
    const chosen = drivers[0]!;
    expect(heapOf(chosen)).toBeGreaterThan(heap);
    expect(heapOf(chosen)).toBeGreaterThanOrEqual(peak * driverHeadroom);
  });

  it('grows a driver that one collect filled, even without heap peaks in the log', () => {
    const heap = heapOf('r5d.2xlarge');
    const decision = driverNodeTypeFor({
      current: 'r5d.2xlarge',
      signals: { evidence: evidence({ largestStageResultBytes: 0.85 * heap }), wallTimeMs: 600_000 },
      offered: shippedCatalog.instanceTypes.filter((e) => e.cloud === 'aws' && /^r5d$/.test(e.family)),
      bringsOwnStorage: false,
      hourlyCost: hourly,
    });
    expect(decision.change?.change).toBe('grow');
    expect(decision.change?.basis).toMatch(
      /one stage sent the driver .* of results of its .* heap \(85% of it\)/,
    );
    expect(heapOf(decision.nodeType)).toBeGreaterThanOrEqual(0.85 * heap * driverHeadroom);
  });

  it('keeps the driver, saying why, when the log has no driver memory peaks', () => {
    const quiet = evidence({});
    expect(allowedDrivers(space(quiet))).toEqual(['r5d.2xlarge']);
    expect(missingDriverSignal(quiet)).toMatch(
      /no driver memory peaks: spark\.eventLog\.logStageExecutorMetrics is off/,
    );
    expect(allowedDrivers(space(undefined))).toEqual(['r5d.2xlarge']);
    expect(missingDriverSignal(undefined)).toMatch(/read before Setpoint read the driver/);
    expect(missingDriverSignal(evidence({ maxMemoryBytes: null, heapBytes: null }))).toMatch(
      /does not say how much memory the driver had/,
    );
  });

  it('never shrinks below what the driver used: a peak that only the current type holds keeps it', () => {
    const heap = heapOf('r5d.2xlarge');
    // 0.7 of the heap: not near the limit, but no cheaper type holds it with room
    const decision = driverNodeTypeFor({
      current: 'r5d.2xlarge',
      signals: { evidence: evidence({ peakJvmHeapBytes: 0.7 * heap }), wallTimeMs: 600_000 },
      offered: shippedCatalog.instanceTypes.filter((e) => e.cloud === 'aws' && /^[mcr]5d$/.test(e.family)),
      bringsOwnStorage: false,
      hourlyCost: hourly,
    });
    expect(decision.change).toBeNull();
    expect(decision.nodeType).toBe('r5d.2xlarge');
    // and whatever it picks for a smaller peak holds that peak
    for (const fraction of [0.05, 0.2, 0.4, 0.6]) {
      const peak = fraction * heap;
      const shrunk = driverNodeTypeFor({
        current: 'r5d.2xlarge',
        signals: { evidence: evidence({ peakJvmHeapBytes: peak }), wallTimeMs: 600_000 },
        offered: shippedCatalog.instanceTypes.filter((e) => e.cloud === 'aws' && /^[mcr]5d$/.test(e.family)),
        bringsOwnStorage: false,
        hourlyCost: hourly,
      });
      expect(heapOf(shrunk.nodeType)).toBeGreaterThanOrEqual(peak * driverHeadroom);
    }
  });
});
