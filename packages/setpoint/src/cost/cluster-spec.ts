import type { CostComponent } from '@setpoint/api-contract';
import type { VolumeSpec } from '../pricing/price-catalog.js';
import type { Cloud } from '../pricing/schema.js';
import type { PlatformBilling } from './platform-billing.js';

/**
 * `spot-with-fallback`: workers run on spot and fall back to on-demand when spot capacity is missing (a
 * platform's fallback availability setting).
 */
export type Market = 'on-demand' | 'spot' | 'spot-with-fallback';

/** A cluster shape without its size: what the optimizer varies and prices by the thousand. */
export interface ClusterCostSpec {
  cloud: Cloud;
  region: string;
  /** Who bills on top of the cloud, and how: the platform's billing description. */
  billing: PlatformBilling;
  driverNodeType: string;
  workerNodeType: string;
  market: Market;
  /** Nodes kept on-demand whatever the market, the driver first (a platform's first-on-demand count). */
  firstOnDemand: number;
  /** Volumes attached to every node (block devices, managed disks). */
  volumesPerNode: VolumeSpec[];
}

/** How many workers run over the duration of an estimate. */
export type WorkerProfile =
  | { kind: 'fixed'; workers: number }
  /** Starts at `min`, climbs linearly to `max` over `rampMinutes`, then stays at `max`. */
  | { kind: 'autoscale'; min: number; max: number; rampMinutes: number }
  /** Consecutive periods of `hours` each with a worker count. */
  | { kind: 'steps'; steps: { hours: number; workers: number }[] };

/**
 * The cost of a run or an estimate: typed components (`@setpoint/api-contract`) whose amounts sum to
 * `total`; `low`/`high` bound the total.
 */
export interface CostBreakdown {
  currency: 'USD';
  components: CostComponent[];
  total: number;
  low: number;
  high: number;
  /** True when a spot price came from the default discount model rather than observed prices. */
  spotSimulated: boolean;
}
