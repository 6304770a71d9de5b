import { type CostBiller, type CostComponent, type CostKind, costKinds } from '@setpoint/api-contract';
import type { UsageLine } from './node-rate.js';
import { addRanges, type CostRange, exactly, multiplyRanges, zeroRange } from './range.js';

/** One component being summed: what it is, how much of it, what it cost (fees: the price per unit). */
export interface ComponentTotals {
  kind: CostKind;
  fee: string | null;
  platform: string;
  cloud: string;
  billedBy: CostBiller;
  description: string;
  unit: string;
  quantity: CostRange;
  usd: CostRange;
  /** A fee's one price per unit: its amount is quantity × price, as the bill computes it. */
  usdPerUnit: number | null;
}

/** A component from its totals; its unit price is its amount per unit (the catalog's, for a fee). */
export function costComponent(entry: ComponentTotals): CostComponent {
  const usd =
    entry.usdPerUnit === null
      ? entry.usd
      : {
          low: entry.quantity.low * entry.usdPerUnit,
          expected: entry.quantity.expected * entry.usdPerUnit,
          high: entry.quantity.high * entry.usdPerUnit,
        };
  return {
    kind: entry.kind,
    fee: entry.fee,
    platform: entry.platform,
    cloud: entry.cloud,
    billed_by: entry.billedBy,
    description: entry.description,
    quantity: entry.quantity.expected,
    unit: entry.unit,
    unit_price_usd:
      entry.usdPerUnit ?? (entry.quantity.expected > 0 ? usd.expected / entry.quantity.expected : null),
    usd: usd.expected,
    low_usd: usd.low,
    high_usd: usd.high,
    estimated_usd: null,
  };
}

/**
 * Node-hours at their rates as typed components, one per resource: the machine by node type and market, the
 * volumes by type (GB-hours), each platform fee by node type (its units at its price per unit).
 */
export function componentsOfUsage(lines: readonly UsageLine[]): CostComponent[] {
  const entries = new Map<string, ComponentTotals>();
  const add = (key: string, start: () => ComponentTotals, quantity: CostRange, usd: CostRange): void => {
    let entry = entries.get(key);
    if (!entry) {
      entry = start();
      entries.set(key, entry);
    }
    entry.quantity = addRanges(entry.quantity, quantity);
    entry.usd = addRanges(entry.usd, usd);
  };
  for (const { hours, rate } of lines) {
    if (!(hours.high > 0)) continue;
    const where = { platform: rate.billing.platform, cloud: rate.cloud };
    add(
      `compute|${rate.nodeType}|${rate.market}`,
      () => ({
        ...where,
        kind: 'compute',
        fee: null,
        billedBy: 'cloud',
        description: `${rate.nodeType}, ${rate.market}`,
        unit: 'node-hour',
        quantity: zeroRange,
        usd: zeroRange,
        usdPerUnit: null,
      }),
      hours,
      multiplyRanges(hours, rate.compute),
    );
    for (const { volume, usdPerHour } of rate.volumes) {
      add(
        `storage|${volume.type}`,
        () => ({
          ...where,
          kind: 'storage',
          fee: null,
          billedBy: 'cloud',
          description: `${volume.type} volumes`,
          unit: 'GB-hour',
          quantity: zeroRange,
          usd: zeroRange,
          usdPerUnit: null,
        }),
        multiplyRanges(hours, exactly(volume.sizeGb * volume.count)),
        multiplyRanges(hours, exactly(usdPerHour)),
      );
    }
    for (const { fee, unitsPerHour, usdPerUnit } of rate.fees) {
      add(
        `fee|${fee.fee}|${rate.nodeType}|${usdPerUnit}`,
        () => ({
          ...where,
          kind: 'platform_fee',
          fee: fee.fee,
          billedBy: fee.billedBy,
          description: `${fee.description}, ${rate.nodeType}`,
          unit: fee.unit,
          quantity: zeroRange,
          usd: zeroRange,
          usdPerUnit,
        }),
        multiplyRanges(hours, exactly(unitsPerHour)),
        zeroRange,
      );
    }
  }
  return byKind([...entries.values()].map(costComponent));
}

/** Components in the order of `costKinds` (compute first), each kind's in the order they were added. */
export function byKind(components: readonly CostComponent[]): CostComponent[] {
  return costKinds.flatMap((kind) => components.filter((component) => component.kind === kind));
}
