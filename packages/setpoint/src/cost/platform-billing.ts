import type { CostBiller, CostKind } from '@setpoint/api-contract';
import type { FeePriceList } from '../pricing/fee-prices.js';

/** A fee charged per node-hour on top of the machine, priced per node type from one of the catalog's lists. */
export interface NodeFee {
  /** Which fee, as totals group it: the same name on every component it produces. */
  fee: string;
  /** How a person reads it on a cost line, e.g. "DBUs". */
  description: string;
  /** What one billed unit is, e.g. `instance-hour`. */
  unit: string;
  billedBy: CostBiller;
  price: FeePriceList;
}

/** A charge per unit of something a run used besides node time, at a fixed price (reported in `usage`). */
export interface UnitCharge {
  /** The name under which a run's timeline reports how much it used. */
  usage: string;
  kind: CostKind;
  /** For a platform fee: which fee. */
  fee: string | null;
  description: string;
  unit: string;
  usdPerUnit: number;
  billedBy: CostBiller;
}

/**
 * How a platform bills a cluster, as data: the fees on top of each node-hour, the shortest time an instance
 * is billed, and charges per unit of other usage. The cost engine reads nothing else about the platform.
 */
export interface PlatformBilling {
  /** The platform's name, as its workspaces carry it; every component of its costs names it. */
  platform: string;
  nodeFees: readonly NodeFee[];
  /** Each instance is billed at least this many hours (per-second billing with a one-minute minimum: 1/60). */
  minimumBilledHours: number;
  unitCharges: readonly UnitCharge[];
}

/** Plain VMs: the cloud's machines and disks, nothing on top. */
export const cloudOnlyBilling: PlatformBilling = {
  platform: 'cloud',
  nodeFees: [],
  minimumBilledHours: 0,
  unitCharges: [],
};

const keys = new WeakMap<PlatformBilling, string>();

/** A stable key for memoizing rates: equal descriptions give equal keys. */
export function billingKey(billing: PlatformBilling): string {
  let key = keys.get(billing);
  if (key === undefined) {
    key = JSON.stringify(billing);
    keys.set(billing, key);
  }
  return key;
}
