import { ValidationError } from '@setpoint/foundation/errors';
import type { PriceCatalog } from './price-catalog.js';
import { type Cloud, type ComputeType, dbuSkuFor, type Plan } from './schema.js';

/**
 * The catalog's price lists for fees charged per node-hour on top of the machine: DBUs (units per node-hour
 * by node type, dollars per DBU by plan and SKU) and the EMR fee (dollars per instance-hour by type).
 */
export type FeePriceList =
  | { list: 'dbu'; plan: Plan; compute: ComputeType; photon: boolean }
  | { list: 'emr-fee' };

/** A fee for one node type: how many units one node-hour is billed, at what price per unit. */
export interface FeeRate {
  unitsPerHour: number;
  usdPerUnit: number;
}

/** Looks a fee up in the catalog; a missing price throws the catalog's own error, never a silent zero. */
export function feeRate(
  catalog: PriceCatalog,
  where: { cloud: Cloud; region: string; nodeType: string },
  price: FeePriceList,
): FeeRate {
  switch (price.list) {
    case 'dbu':
      return {
        unitsPerHour: catalog.dbuRate(where.cloud, where.nodeType, price.photon).dbuPerHour,
        usdPerUnit: catalog.dbuPrice(
          where.cloud,
          where.region,
          price.plan,
          dbuSkuFor(price.compute, price.photon),
        ).usdPerDbu,
      };
    case 'emr-fee':
      if (where.cloud !== 'aws') {
        throw new ValidationError('EMR_ON_AZURE', 'EMR billing applies to AWS clusters only');
      }
      return { unitsPerHour: 1, usdPerUnit: catalog.emrFee(where.region, where.nodeType).usdPerHour };
  }
}
