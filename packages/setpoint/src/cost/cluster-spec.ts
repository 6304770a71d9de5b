import type { VolumeSpec } from '../pricing/price-catalog.js';
import type { Cloud, ComputeType, Plan } from '../pricing/schema.js';

/** Who bills on top of the cloud: Databricks (DBUs), EMR (a per-instance fee), or nobody (plain VMs). */
export type Billing =
  | { platform: 'databricks'; plan: Plan; compute: ComputeType; photon: boolean }
  | { platform: 'emr' }
  | { platform: 'cloud-only' };

/**
 * `spot-with-fallback`: workers run on spot and fall back to on-demand when spot capacity is missing
 * (Databricks `SPOT_WITH_FALLBACK`, Azure `SPOT_WITH_FALLBACK_AZURE`).
 */
export type Market = 'on-demand' | 'spot' | 'spot-with-fallback';

/** A cluster shape without its size: what the optimizer varies and prices by the thousand. */
export interface ClusterCostSpec {
  cloud: Cloud;
  region: string;
  billing: Billing;
  driverNodeType: string;
  workerNodeType: string;
  market: Market;
  /** Nodes kept on-demand whatever the market, the driver first (Databricks `first_on_demand`, default 1). */
  firstOnDemand: number;
  /** Volumes attached to every node (Databricks `ebs_volume_*`, EMR block devices, Azure managed disks). */
  volumesPerNode: VolumeSpec[];
}

/** How many workers run over the duration of an estimate. */
export type WorkerProfile =
  | { kind: 'fixed'; workers: number }
  /** Starts at `min`, climbs linearly to `max` over `rampMinutes`, then stays at `max`. */
  | { kind: 'autoscale'; min: number; max: number; rampMinutes: number }
  /** Consecutive periods of `hours` each with a worker count. */
  | { kind: 'steps'; steps: { hours: number; workers: number }[] };

/** The cost of a run or an estimate. Components are expected values; `low`/`high` bound the total. */
export interface CostBreakdown {
  currency: 'USD';
  cloud: { compute: number; storage: number; emrFee: number };
  dbu: { units: number; rate: number; cost: number };
  total: number;
  low: number;
  high: number;
  /** True when a spot price came from the default discount model rather than observed prices. */
  spotSimulated: boolean;
}
