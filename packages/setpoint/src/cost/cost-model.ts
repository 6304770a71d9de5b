import { ValidationError } from '@setpoint/foundation/errors';
import { feeRate } from '../pricing/fee-prices.js';
import {
  assertPositiveVolume,
  type PriceCatalog,
  type VolumeSpec,
  volumeUsdPerHour,
} from '../pricing/price-catalog.js';
import type { Cloud } from '../pricing/schema.js';
import type { ClusterCostSpec, CostBreakdown, Market } from './cluster-spec.js';
import { componentsOfUsage } from './components.js';
import type { NodeHourlyRate, UsageLine, VolumeRate } from './node-rate.js';
import { billingKey, type PlatformBilling } from './platform-billing.js';
import type { CostRange } from './range.js';
import { exactly } from './range.js';

export interface NodeRateQuery {
  cloud: Cloud;
  region: string;
  billing: PlatformBilling;
  nodeType: string;
  /** `spot-with-fallback`: spot unless the platform had to fall back to on-demand (not known which). */
  market: Market;
  /** An observed spot price for this node, which replaces the catalog's spot range. */
  spotUsdPerHour?: number;
  volumes: readonly VolumeSpec[];
}

export interface CostModelOptions {
  /** Share of spot-with-fallback worker-hours expected to fall back to on-demand (default 0.1). */
  expectedFallbackShare?: number;
}

/** Hourly rates of one cluster shape, resolved once, for any worker count or timeline. */
export interface ClusterRate {
  readonly spec: ClusterCostSpec;
  readonly driver: NodeHourlyRate;
  /** A worker under the cluster's market, blending spot and fallback as configured. */
  readonly worker: NodeHourlyRate;
  /** A worker kept on-demand by `firstOnDemand`. */
  readonly onDemandWorker: NodeHourlyRate;
  /** Cost per hour with `workers` workers. */
  perHour(workers: number): CostBreakdown;
  /** Total $/h with `workers` workers as a range, without building a breakdown: the optimizer's hot path. */
  usdPerHour(workers: number): CostRange;
}

export interface CostModel {
  readonly catalog: PriceCatalog;
  nodeRate(query: NodeRateQuery): NodeHourlyRate;
  rateCluster(spec: ClusterCostSpec): ClusterRate;
  /** Sums usage lines into typed components and their total. */
  sum(lines: readonly UsageLine[]): CostBreakdown;
}

function volumesKey(volumes: readonly VolumeSpec[]): string {
  return volumes
    .map((v) => `${v.type}:${v.sizeGb}x${v.count}:${v.iops ?? ''}:${v.throughputMibps ?? ''}`)
    .join(',');
}

/** A node's $/h at one end of its range: machine, disks, then each fee in its billing's order. */
export function nodeUsdPerHour(node: NodeHourlyRate, pick: keyof CostRange): number {
  let usd = node.compute[pick] + node.storage;
  for (const fee of node.fees) usd += fee.unitsPerHour * fee.usdPerUnit;
  return usd;
}

/**
 * The pure cost engine over a price catalog. Node rates are memoized, so pricing thousands of candidate
 * clusters costs a few map lookups each.
 */
export function createCostModel(catalog: PriceCatalog, options: CostModelOptions = {}): CostModel {
  const fallbackShare = options.expectedFallbackShare ?? 0.1;
  if (!(fallbackShare >= 0 && fallbackShare <= 1)) {
    throw new ValidationError(
      'INVALID_FALLBACK_SHARE',
      'the expected fallback share must be between 0 and 1',
    );
  }
  const nodeRates = new Map<string, NodeHourlyRate>();
  const clusterRates = new Map<string, ClusterRate>();

  const nodeRate = (query: NodeRateQuery): NodeHourlyRate => {
    const key = [
      query.cloud,
      query.region,
      billingKey(query.billing),
      query.nodeType,
      query.market,
      query.spotUsdPerHour ?? '',
      volumesKey(query.volumes),
    ].join('|');
    const cached = nodeRates.get(key);
    if (cached) return cached;

    if (query.market === 'spot-with-fallback') {
      const blended = withFallback(
        nodeRate({ ...query, market: 'spot' }),
        nodeRate({ ...query, market: 'on-demand' }),
        fallbackShare,
      );
      nodeRates.set(key, blended);
      return blended;
    }
    const { cloud, region, billing, nodeType } = query;
    let compute: CostRange;
    let spotSimulated = false;
    if (query.market === 'on-demand') {
      compute = exactly(catalog.onDemandPrice(cloud, region, nodeType).usdPerHour);
    } else if (query.spotUsdPerHour !== undefined) {
      compute = exactly(query.spotUsdPerHour);
    } else {
      const spot = catalog.spotPrice(cloud, region, nodeType);
      compute = { low: spot.low, expected: spot.expected, high: spot.high };
      spotSimulated = spot.simulated;
    }
    let storage = 0;
    const volumes: VolumeRate[] = [];
    for (const volume of query.volumes) {
      assertPositiveVolume(volume);
      const usdPerHour = volumeUsdPerHour(catalog.volumePrice(cloud, region, volume));
      volumes.push({ volume, usdPerHour });
      storage += usdPerHour;
    }
    const fees = billing.nodeFees.map((fee) => ({
      fee,
      ...feeRate(catalog, { cloud, region, nodeType }, fee.price),
    }));
    const rate: NodeHourlyRate = {
      cloud,
      billing,
      nodeType,
      market: query.market,
      compute,
      storage,
      volumes,
      fees,
      spotSimulated,
    };
    nodeRates.set(key, rate);
    return rate;
  };

  const sum = (lines: readonly UsageLine[]): CostBreakdown => {
    const components = componentsOfUsage(lines);
    let total = 0;
    let low = 0;
    let high = 0;
    for (const component of components) {
      total += component.usd;
      low += component.low_usd;
      high += component.high_usd;
    }
    return {
      currency: 'USD',
      components,
      total,
      low,
      high,
      spotSimulated: lines.some(({ hours, rate }) => rate.spotSimulated && hours.high > 0),
    };
  };

  const rateCluster = (spec: ClusterCostSpec): ClusterRate => {
    const key = [
      spec.cloud,
      spec.region,
      billingKey(spec.billing),
      spec.driverNodeType,
      spec.workerNodeType,
      spec.market,
      spec.firstOnDemand,
      volumesKey(spec.volumesPerNode),
    ].join('|');
    const cached = clusterRates.get(key);
    if (cached) return cached;
    const base = {
      cloud: spec.cloud,
      region: spec.region,
      billing: spec.billing,
      volumes: spec.volumesPerNode,
    };
    const onDemandDriver = nodeRate({ ...base, nodeType: spec.driverNodeType, market: 'on-demand' });
    const onDemandWorker = nodeRate({ ...base, nodeType: spec.workerNodeType, market: 'on-demand' });
    const driver =
      spec.firstOnDemand >= 1
        ? onDemandDriver
        : nodeRate({ ...base, nodeType: spec.driverNodeType, market: spec.market });
    const worker = nodeRate({ ...base, nodeType: spec.workerNodeType, market: spec.market });
    const onDemandWorkerSlots = Math.max(0, spec.firstOnDemand - 1);
    const totals = (pick: keyof CostRange) => ({
      driver: nodeUsdPerHour(driver, pick),
      onDemandWorker: nodeUsdPerHour(onDemandWorker, pick),
      worker: nodeUsdPerHour(worker, pick),
    });
    const low = totals('low');
    const expected = totals('expected');
    const high = totals('high');
    const rate: ClusterRate = {
      spec,
      driver,
      worker,
      onDemandWorker,
      perHour: (workers) => {
        const onDemandCount = Math.min(workers, onDemandWorkerSlots);
        return sum([
          { hours: exactly(1), rate: driver },
          { hours: exactly(onDemandCount), rate: onDemandWorker },
          { hours: exactly(workers - onDemandCount), rate: worker },
        ]);
      },
      usdPerHour: (workers) => {
        const onDemandCount = Math.min(workers, onDemandWorkerSlots);
        const marketCount = workers - onDemandCount;
        return {
          low: low.driver + onDemandCount * low.onDemandWorker + marketCount * low.worker,
          expected: expected.driver + onDemandCount * expected.onDemandWorker + marketCount * expected.worker,
          high: high.driver + onDemandCount * high.onDemandWorker + marketCount * high.worker,
        };
      },
    };
    clusterRates.set(key, rate);
    return rate;
  };

  return { catalog, nodeRate, rateCluster, sum };
}

/**
 * Spot with fallback: at best every hour on spot at its lowest price; expected, the fallback share
 * on-demand and the rest at the expected spot price; at worst every hour on-demand.
 */
function withFallback(spot: NodeHourlyRate, onDemand: NodeHourlyRate, fallbackShare: number): NodeHourlyRate {
  return {
    ...spot,
    market: 'spot-with-fallback',
    compute: {
      low: spot.compute.low,
      expected: (1 - fallbackShare) * spot.compute.expected + fallbackShare * onDemand.compute.expected,
      high: Math.max(spot.compute.high, onDemand.compute.high),
    },
  };
}
