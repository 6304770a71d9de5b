import { ValidationError } from '@setpoint/foundation/errors';
import {
  assertPositiveVolume,
  type PriceCatalog,
  type VolumeSpec,
  volumeUsdPerHour,
} from '../pricing/price-catalog.js';
import { type Cloud, dbuSkuFor } from '../pricing/schema.js';
import type { Billing, ClusterCostSpec, CostBreakdown, Market } from './cluster-spec.js';
import { addRanges, type CostRange, exactly, multiplyRanges, zeroRange } from './range.js';

/** What one node costs per hour it is up, per purchase option. */
export interface NodeHourlyRate {
  /** VM $/h: a range when the spot price is modelled or observed within bounds. */
  compute: CostRange;
  storage: number;
  emrFee: number;
  /** DBUs per hour (0 outside Databricks). */
  dbuUnits: number;
  spotSimulated: boolean;
}

/** Hours some nodes were up, at one node rate. */
export interface UsageLine {
  hours: CostRange;
  rate: NodeHourlyRate;
}

export interface NodeRateQuery {
  cloud: Cloud;
  region: string;
  billing: Billing;
  nodeType: string;
  /** `spot-with-fallback`: spot unless Databricks had to fall back to on-demand (not known which). */
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
  /** $ per DBU for this cluster's billing (0 outside Databricks). */
  readonly usdPerDbu: number;
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
  /** Sums usage lines into a breakdown at the given $/DBU. */
  sum(lines: readonly UsageLine[], usdPerDbu: number): CostBreakdown;
}

function billingKey(billing: Billing): string {
  return billing.platform === 'databricks'
    ? `dbx:${billing.plan}:${billing.compute}:${billing.photon}`
    : billing.platform;
}

function volumesKey(volumes: readonly VolumeSpec[]): string {
  return volumes
    .map((v) => `${v.type}:${v.sizeGb}x${v.count}:${v.iops ?? ''}:${v.throughputMibps ?? ''}`)
    .join(',');
}

export function usdPerDbuFor(catalog: PriceCatalog, cloud: Cloud, region: string, billing: Billing): number {
  if (billing.platform !== 'databricks') return 0;
  return catalog.dbuPrice(cloud, region, billing.plan, dbuSkuFor(billing.compute, billing.photon)).usdPerDbu;
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
    for (const volume of query.volumes) {
      assertPositiveVolume(volume);
      storage += volumeUsdPerHour(catalog.volumePrice(cloud, region, volume));
    }
    const emrFee = billing.platform === 'emr' ? catalog.emrFee(region, nodeType).usdPerHour : 0;
    const dbuUnits =
      billing.platform === 'databricks' ? catalog.dbuRate(cloud, nodeType, billing.photon).dbuPerHour : 0;
    const rate: NodeHourlyRate = { compute, storage, emrFee, dbuUnits, spotSimulated };
    nodeRates.set(key, rate);
    return rate;
  };

  const sum = (lines: readonly UsageLine[], usdPerDbu: number): CostBreakdown => {
    let compute = zeroRange;
    let storage = zeroRange;
    let emrFee = zeroRange;
    let dbuUnits = zeroRange;
    let spotSimulated = false;
    for (const { hours, rate } of lines) {
      compute = addRanges(compute, multiplyRanges(hours, rate.compute));
      storage = addRanges(storage, multiplyRanges(hours, exactly(rate.storage)));
      emrFee = addRanges(emrFee, multiplyRanges(hours, exactly(rate.emrFee)));
      dbuUnits = addRanges(dbuUnits, multiplyRanges(hours, exactly(rate.dbuUnits)));
      spotSimulated ||= rate.spotSimulated && hours.high > 0;
    }
    const dbuCost = dbuUnits.expected * usdPerDbu;
    const total = compute.expected + storage.expected + emrFee.expected + dbuCost;
    return {
      currency: 'USD',
      cloud: { compute: compute.expected, storage: storage.expected, emrFee: emrFee.expected },
      dbu: { units: dbuUnits.expected, rate: usdPerDbu, cost: dbuCost },
      total,
      low: compute.low + storage.low + emrFee.low + dbuUnits.low * usdPerDbu,
      high: compute.high + storage.high + emrFee.high + dbuUnits.high * usdPerDbu,
      spotSimulated,
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
    if (spec.cloud === 'azure' && spec.billing.platform === 'emr') {
      throw new ValidationError('EMR_ON_AZURE', 'EMR billing applies to AWS clusters only');
    }
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
    const usdPerDbu = usdPerDbuFor(catalog, spec.cloud, spec.region, spec.billing);
    const onDemandWorkerSlots = Math.max(0, spec.firstOnDemand - 1);
    const nodeTotal = (node: NodeHourlyRate, pick: keyof CostRange): number =>
      node.compute[pick] + node.storage + node.emrFee + node.dbuUnits * usdPerDbu;
    const totals = (pick: keyof CostRange) => ({
      driver: nodeTotal(driver, pick),
      onDemandWorker: nodeTotal(onDemandWorker, pick),
      worker: nodeTotal(worker, pick),
    });
    const low = totals('low');
    const expected = totals('expected');
    const high = totals('high');
    const rate: ClusterRate = {
      spec,
      usdPerDbu,
      driver,
      worker,
      onDemandWorker,
      perHour: (workers) => {
        const onDemandCount = Math.min(workers, onDemandWorkerSlots);
        return sum(
          [
            { hours: exactly(1), rate: driver },
            { hours: exactly(onDemandCount), rate: onDemandWorker },
            { hours: exactly(workers - onDemandCount), rate: worker },
          ],
          usdPerDbu,
        );
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
    compute: {
      low: spot.compute.low,
      expected: (1 - fallbackShare) * spot.compute.expected + fallbackShare * onDemand.compute.expected,
      high: Math.max(spot.compute.high, onDemand.compute.high),
    },
  };
}
