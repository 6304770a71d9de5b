import type { CostComponent } from '@setpoint/api-contract';
import { ValidationError } from '@setpoint/foundation/errors';
import type { VolumeSpec } from '../pricing/price-catalog.js';
import type { Cloud } from '../pricing/schema.js';
import type { CostBreakdown, Market } from './cluster-spec.js';
import { byKind, costComponent } from './components.js';
import type { CostModel } from './cost-model.js';
import type { UsageLine } from './node-rate.js';
import type { PlatformBilling } from './platform-billing.js';
import { type CostRange, exactly, zeroRange } from './range.js';

/** One instance's life in a cluster: each replacement of a lost node is a node of its own. */
export interface TimelineNode {
  role: 'driver' | 'worker';
  nodeType: string;
  startMs: number;
  endMs: number;
  /** `spot-with-fallback` when the node may have fallen back to on-demand: its range reaches on-demand. */
  market: Market;
  /** The spot price this node actually paid, when known. */
  spotUsdPerHour?: number;
  volumes?: VolumeSpec[];
  /** This instance's billed minutes before its observed start, instead of the run-wide option. */
  preStartMinutes?: CostRange;
}

export interface ClusterTimeline {
  cloud: Cloud;
  region: string;
  billing: PlatformBilling;
  nodes: TimelineNode[];
  /** How much of each unit-charged usage the run had, by the name the billing's `unitCharges` give it. */
  usage?: Readonly<Record<string, number>>;
}

export interface RunCostOptions {
  /**
   * Minutes each instance was billed before its observed start (boot and init before the first poll; the
   * reference product measured 2–3 minutes per instance). Default: none.
   */
  preStartMinutes?: CostRange;
}

export interface TimelineCost extends CostBreakdown {
  /** Wall-clock hours from the first node start to the last node end. */
  hours: number;
  /** Expected instance-hours across all nodes. */
  nodeHours: number;
}

function checkedPreStart(preStart: CostRange): CostRange {
  if (!(preStart.low >= 0 && preStart.low <= preStart.expected && preStart.expected <= preStart.high)) {
    throw new ValidationError('INVALID_PRE_START', 'pre-start minutes need 0 ≤ low ≤ expected ≤ high');
  }
  return preStart;
}

/** The actual cost of a run from its cluster timeline. */
/** A breakdown as a run's cost is recorded: its total, its bounds and its components. */
export function costRecord(breakdown: CostBreakdown): {
  currency: 'USD';
  totalUsd: number;
  lowUsd: number;
  highUsd: number;
  components: CostComponent[];
} {
  return {
    currency: 'USD',
    totalUsd: breakdown.total,
    lowUsd: breakdown.low,
    highUsd: breakdown.high,
    components: breakdown.components,
  };
}

export function runCost(
  model: CostModel,
  timeline: ClusterTimeline,
  options: RunCostOptions = {},
): TimelineCost {
  if (timeline.nodes.length === 0) {
    throw new ValidationError('EMPTY_TIMELINE', 'the cluster timeline has no nodes');
  }
  const runPreStart = checkedPreStart(options.preStartMinutes ?? { low: 0, expected: 0, high: 0 });
  const minimum = timeline.billing.minimumBilledHours;
  const lines: UsageLine[] = timeline.nodes.map((node) => {
    if (!(node.endMs >= node.startMs)) {
      throw new ValidationError('INVALID_TIMELINE', `node ${node.nodeType} ends before it starts`);
    }
    const preStart = node.preStartMinutes ? checkedPreStart(node.preStartMinutes) : runPreStart;
    const observed = (node.endMs - node.startMs) / 3_600_000;
    const hours = {
      low: Math.max(minimum, observed + preStart.low / 60),
      expected: Math.max(minimum, observed + preStart.expected / 60),
      high: Math.max(minimum, observed + preStart.high / 60),
    };
    const rate = model.nodeRate({
      cloud: timeline.cloud,
      region: timeline.region,
      billing: timeline.billing,
      nodeType: node.nodeType,
      market: node.market,
      volumes: node.volumes ?? [],
      ...(node.spotUsdPerHour === undefined ? {} : { spotUsdPerHour: node.spotUsdPerHour }),
    });
    return { hours, rate };
  });
  const breakdown = withUnitCharges(model.sum(lines), timeline);
  const start = Math.min(...timeline.nodes.map((node) => node.startMs));
  const end = Math.max(...timeline.nodes.map((node) => node.endMs));
  return {
    ...breakdown,
    hours: (end - start) / 3_600_000,
    nodeHours: lines.reduce((sum, line) => sum + line.hours.expected, 0),
  };
}

/** The billing's unit charges for the usage the timeline reports, added to the node-hours' components. */
function withUnitCharges(breakdown: CostBreakdown, timeline: ClusterTimeline): CostBreakdown {
  const charged = timeline.billing.unitCharges.flatMap((charge) => {
    const quantity = timeline.usage?.[charge.usage] ?? 0;
    if (!(quantity >= 0) || !Number.isFinite(quantity)) {
      throw new ValidationError(
        'INVALID_USAGE',
        `usage ${charge.usage} must be a number ≥ 0, got ${quantity}`,
      );
    }
    if (quantity === 0) return [];
    return [
      costComponent({
        kind: charge.kind,
        fee: charge.fee,
        platform: timeline.billing.platform,
        cloud: timeline.cloud,
        billedBy: charge.billedBy,
        description: charge.description,
        unit: charge.unit,
        quantity: exactly(quantity),
        usd: zeroRange,
        usdPerUnit: charge.usdPerUnit,
      }),
    ];
  });
  if (charged.length === 0) return breakdown;
  const extra = charged.reduce((sum, component) => sum + component.usd, 0);
  return {
    ...breakdown,
    components: byKind([...breakdown.components, ...charged]),
    total: breakdown.total + extra,
    low: breakdown.low + extra,
    high: breakdown.high + extra,
  };
}
