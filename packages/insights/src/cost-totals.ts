import type { CostByKind, CostComponent, CostKind, CostTotals } from '@setpoint/api-contract';

/** What totals read of a component: its kind, which fee, the platform, who bills it and the amount. */
export type CostComponentLike = Pick<
  CostComponent,
  'kind' | 'fee' | 'platform' | 'cloud' | 'billed_by' | 'usd'
>;

/** A multiplier per component (1 at list prices); the organization's discounts are one. */
export type ComponentFactor = (component: CostComponentLike) => number;

const listPrice: ComponentFactor = () => 1;

export function zeroByKind(): CostByKind {
  return { compute: 0, platform_fee: 0, storage: 0, network: 0, other: 0 };
}

/** The dollars of one kind in a run's components (of one fee, when given). */
export function kindUsd(components: readonly CostComponentLike[], kind: CostKind, fee?: string): number {
  let usd = 0;
  for (const component of components) {
    if (component.kind === kind && (fee === undefined || component.fee === fee)) usd += component.usd;
  }
  return usd;
}

/** A run's dollars by kind. */
export function costByKind(components: readonly CostComponentLike[], factor = listPrice): CostByKind {
  const byKind = zeroByKind();
  for (const component of components) byKind[component.kind] += component.usd * factor(component);
  return byKind;
}

/** Sums that grow run by run (and total by total) into one `CostTotals`. */
export class CostTotalsBuilder {
  #total = 0;
  #runs = 0;
  readonly #byKind = zeroByKind();
  readonly #fees = new Map<string, number>();
  readonly #platforms = new Map<string, number>();

  /** One costed run's components, each at `factor` × its amount. */
  addRun(components: readonly CostComponentLike[], factor = listPrice): this {
    this.#runs += 1;
    for (const component of components) {
      const usd = component.usd * factor(component);
      this.#total += usd;
      this.#byKind[component.kind] += usd;
      if (component.kind === 'platform_fee') {
        const fee = component.fee ?? 'unnamed';
        this.#fees.set(fee, (this.#fees.get(fee) ?? 0) + usd);
      }
      this.#platforms.set(component.platform, (this.#platforms.get(component.platform) ?? 0) + usd);
    }
    return this;
  }

  /** Totals already summed (a project's), added kind by kind, fee by fee, platform by platform. */
  addTotals(totals: CostTotals): this {
    this.#runs += totals.runs;
    this.#total += totals.total_usd;
    for (const kind of Object.keys(this.#byKind) as CostKind[]) this.#byKind[kind] += totals.by_kind[kind];
    for (const { fee, usd } of totals.platform_fees) this.#fees.set(fee, (this.#fees.get(fee) ?? 0) + usd);
    for (const { platform, usd } of totals.platforms)
      this.#platforms.set(platform, (this.#platforms.get(platform) ?? 0) + usd);
    return this;
  }

  build(): CostTotals {
    const largestFirst = (entries: Map<string, number>) =>
      [...entries].sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
    return {
      total_usd: this.#total,
      by_kind: { ...this.#byKind },
      platform_fees: largestFirst(this.#fees).map(([fee, usd]) => ({ fee, usd })),
      platforms: largestFirst(this.#platforms).map(([platform, usd]) => ({ platform, usd })),
      runs: this.#runs,
    };
  }
}

/** Each kind's name on a page, a chart legend or a CLI table. */
export const costKindLabels: Record<CostKind, string> = {
  compute: 'Compute',
  platform_fee: 'Platform fees',
  storage: 'Storage',
  network: 'Network',
  other: 'Other',
};

/** A fee's name for people: a first word of up to three letters is an acronym (`abc_fee` → "ABC fee"). */
export function feeLabel(fee: string): string {
  return fee
    .split(/[_-]+/)
    .filter(Boolean)
    .map((word, index) => (index === 0 && word.length <= 3 ? word.toUpperCase() : word))
    .join(' ');
}

/** A platform's name for people: a short name is an acronym (`abc` → "ABC"), a long one capitalized. */
export function platformLabel(platform: string): string {
  if (platform.length <= 3) return platform.toUpperCase();
  return `${platform.charAt(0).toUpperCase()}${platform.slice(1)}`;
}
