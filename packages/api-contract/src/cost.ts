import { z } from 'zod';

/**
 * What a charge is for. Every total, split, chart and export sums components by kind (and platform fees
 * by `fee`), never by their description.
 */
export const costKinds = ['compute', 'platform_fee', 'storage', 'network', 'other'] as const;
export type CostKind = (typeof costKinds)[number];

/** Who sends the bill: the cloud (VMs, disks, traffic and the fees on its invoice) or the platform itself. */
export const costBillers = ['cloud', 'platform'] as const;
export type CostBiller = (typeof costBillers)[number];

/**
 * One typed line of a run's cost: a resource, how much of it was used, at what unit price. A platform's
 * billing description (fees per node-hour, minimum billed time, unit charges) is what produces them.
 */
export const costComponentSchema = z.object({
  kind: z.enum(costKinds),
  /** `platform_fee` only: which fee, as the platform's billing names it (e.g. `dbu`); null otherwise. */
  fee: z.string().nullable(),
  /** The platform the run ran on, as its workspace names it. */
  platform: z.string(),
  /** The cloud whose prices priced it (and whose discount applies to what the cloud bills). */
  cloud: z.string(),
  billed_by: z.enum(costBillers),
  /** The resource as a person reads it: an instance type and market, a volume type, a fee's name. */
  description: z.string(),
  quantity: z.number().nonnegative(),
  /** What `quantity` counts: `node-hour`, `GB-hour`, `DBU`… */
  unit: z.string(),
  /** `usd ÷ quantity` at list prices (the mean where prices varied, e.g. spot); null when quantity is 0. */
  unit_price_usd: z.number().nullable(),
  usd: z.number(),
  /** The bounds of `usd` (spot and autoscaling uncertainty); equal to it when the amount is exact. */
  low_usd: z.number(),
  high_usd: z.number(),
  /** When `usd` is as billed by the platform's own records: the list-price estimate it replaced; else null. */
  estimated_usd: z.number().nullable(),
});
export type CostComponent = z.infer<typeof costComponentSchema>;

/** Dollars per kind; every kind is present (0 when nothing of it was charged). */
export const costByKindSchema = z.object({
  compute: z.number(),
  platform_fee: z.number(),
  storage: z.number(),
  network: z.number(),
  other: z.number(),
});
export type CostByKind = z.infer<typeof costByKindSchema>;

/** A sum of run costs: the total, the same money by kind, platform fees by fee and by platform. */
export const costTotalsSchema = z.object({
  total_usd: z.number(),
  by_kind: costByKindSchema,
  /** Platform fees by `fee`, largest first; their sum is `by_kind.platform_fee`. */
  platform_fees: z.array(z.object({ fee: z.string(), usd: z.number() })),
  /** The same total by the platform the runs ran on, largest first. */
  platforms: z.array(z.object({ platform: z.string(), usd: z.number() })),
  /** How many costed runs were summed. */
  runs: z.number().int(),
});
export type CostTotals = z.infer<typeof costTotalsSchema>;
