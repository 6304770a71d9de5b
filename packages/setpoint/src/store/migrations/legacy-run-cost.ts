import type { CostComponent } from '@setpoint/api-contract';

/** A run's cost as versions before typed components stored it: a total and labelled lines. */
interface LegacyRunCost {
  currency?: string;
  totalUsd: number;
  lines: Array<{ item: string; usd: number }>;
  overhead?: unknown;
}

type LegacyKind = Pick<CostComponent, 'kind' | 'fee' | 'billed_by' | 'unit'> & { platform: string | null };

/**
 * The labels those versions wrote, frozen here: the one place a cost line is read by its text. Nothing
 * else does; from this migration on, every cost is typed when it is made.
 */
const legacyLines: Array<{ label: RegExp; as: LegacyKind; quantity?: (match: RegExpMatchArray) => number }> =
  [
    {
      label: /^cloud compute$/i,
      as: { kind: 'compute', fee: null, billed_by: 'cloud', unit: 'node-hour', platform: null },
    },
    {
      label: /^cloud storage$/i,
      as: { kind: 'storage', fee: null, billed_by: 'cloud', unit: 'GB-hour', platform: null },
    },
    {
      label: /^Databricks DBUs \(([\d.]+) DBU\)$/,
      as: { kind: 'platform_fee', fee: 'dbu', billed_by: 'platform', unit: 'DBU', platform: 'databricks' },
      quantity: (match) => Number(match[1]),
    },
    {
      // a bill's DBUs were the cluster's, not the run's: the run's quantity is not known
      label: /^Databricks DBUs as billed\b/,
      as: { kind: 'platform_fee', fee: 'dbu', billed_by: 'platform', unit: 'DBU', platform: 'databricks' },
    },
    {
      label: /^EC2 compute$/,
      as: { kind: 'compute', fee: null, billed_by: 'cloud', unit: 'node-hour', platform: 'emr' },
    },
    {
      label: /^EBS storage$/,
      as: { kind: 'storage', fee: null, billed_by: 'cloud', unit: 'GB-hour', platform: 'emr' },
    },
    {
      label: /^EMR fee$/,
      as: {
        kind: 'platform_fee',
        fee: 'emr_fee',
        billed_by: 'cloud',
        unit: 'instance-hour',
        platform: 'emr',
      },
    },
  ];
const billedEstimateLabel = 'estimated Databricks charge before the bill';

function isLegacy(value: unknown): value is LegacyRunCost {
  if (typeof value !== 'object' || value === null) return false;
  const cost = value as Partial<LegacyRunCost> & { components?: unknown };
  return cost.components === undefined && typeof cost.totalUsd === 'number' && Array.isArray(cost.lines);
}

/**
 * A stored cost in today's shape: typed components that sum to the same total, its bounds as fields; null
 * when it already is (or is not a cost). Quantities the lines did not carry are 0 with no unit price; a
 * line no version wrote becomes `other`. The range sat on the total alone, so it goes on the machines
 * (spot and autoscaling made it), as far as their amount allows.
 */
export function convertLegacyRunCost(value: unknown, cloud: string | null): Record<string, unknown> | null {
  if (!isLegacy(value)) return null;
  const { lines, overhead, ...rest } = value;
  const typed = lines.flatMap((line) => {
    if (/^total (low|high)$/i.test(line.item) || line.item === billedEstimateLabel) return [];
    for (const known of legacyLines) {
      const match = line.item.match(known.label);
      if (match) return [{ line, as: known.as, quantity: known.quantity?.(match) ?? 0 }];
    }
    const other: LegacyKind = { kind: 'other', fee: null, billed_by: 'cloud', unit: 'item', platform: null };
    return [{ line, as: other, quantity: 0 }];
  });
  const platform = typed.find((entry) => entry.as.platform !== null)?.as.platform ?? 'databricks';
  const estimate = lines.find((line) => line.item === billedEstimateLabel)?.usd ?? null;
  const components: CostComponent[] = typed.map(({ line, as, quantity }) => ({
    kind: as.kind,
    fee: as.fee,
    platform: as.platform ?? platform,
    cloud: cloud ?? 'aws',
    billed_by: as.billed_by,
    description: line.item,
    quantity,
    unit: as.unit,
    unit_price_usd: quantity > 0 ? line.usd / quantity : null,
    usd: line.usd,
    low_usd: line.usd,
    high_usd: line.usd,
    estimated_usd: as.fee !== null && /as billed/.test(line.item) ? estimate : null,
  }));
  const total = value.totalUsd;
  const bound = (label: string) => lines.find((line) => line.item.toLowerCase() === label)?.usd ?? total;
  const lowUsd = bound('total low');
  const highUsd = bound('total high');
  const machines = components.find((component) => component.kind === 'compute');
  if (machines) {
    machines.low_usd = Math.max(0, machines.usd - (total - lowUsd));
    machines.high_usd = machines.usd + (highUsd - total);
  }
  return {
    ...rest,
    currency: 'USD',
    totalUsd: total,
    lowUsd,
    highUsd,
    components,
    ...(overhead === undefined ? {} : { overhead }),
  };
}
