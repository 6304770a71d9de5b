import type { FeeRate } from '../pricing/fee-prices.js';
import type { VolumeSpec } from '../pricing/price-catalog.js';
import type { Cloud } from '../pricing/schema.js';
import type { Market } from './cluster-spec.js';
import type { NodeFee, PlatformBilling } from './platform-billing.js';
import type { CostRange } from './range.js';

/** One volume spec of a node: its size in all and what it costs per hour. */
export interface VolumeRate {
  volume: VolumeSpec;
  usdPerHour: number;
}

/** A fee of the node's platform for this node type. */
export interface NodeFeeRate extends FeeRate {
  fee: NodeFee;
}

/** What one node costs per hour it is up, per purchase option. */
export interface NodeHourlyRate {
  /** Where the rate applies: the cloud and region it was priced in, the platform's billing, the node. */
  cloud: Cloud;
  billing: PlatformBilling;
  nodeType: string;
  market: Market;
  /** VM $/h: a range when the spot price is modelled or observed within bounds. */
  compute: CostRange;
  /** $/h of all the node's volumes. */
  storage: number;
  volumes: readonly VolumeRate[];
  /** The platform's fees per node-hour, in the order its billing lists them. */
  fees: readonly NodeFeeRate[];
  spotSimulated: boolean;
}

/** Hours some nodes were up, at one node rate. */
export interface UsageLine {
  hours: CostRange;
  rate: NodeHourlyRate;
}
