import type { CostComponent, OrganizationSettings } from '@setpoint/api-contract';
import type { ComponentFactor } from '@setpoint/insights';

/** Percent off the cloud bill for a cloud; a cloud without a discount setting pays list price. */
export function cloudDiscountPct(settings: OrganizationSettings, cloud: string | null): number {
  switch (cloud?.toLowerCase()) {
    case 'aws':
      return settings.aws_discount_pct;
    case 'azure':
      return settings.azure_discount_pct;
    case 'gcp':
      return settings.gcp_discount_pct;
    default:
      return 0;
  }
}

/**
 * Percent off one cost component, by who bills it: what the cloud bills (compute, storage, network and the
 * fees on the cloud's invoice) takes that cloud's discount; what the data platform bills on its own invoice
 * (DBUs) takes the platform discount (`dbu_discount_pct`).
 */
export function discountPct(
  settings: OrganizationSettings,
  component: Pick<CostComponent, 'billed_by' | 'cloud'>,
): number {
  return component.billed_by === 'platform'
    ? settings.dbu_discount_pct
    : cloudDiscountPct(settings, component.cloud);
}

/** What each component costs the organization per list-price dollar. */
export function discountFactor(settings: OrganizationSettings): ComponentFactor {
  return (component) => 1 - discountPct(settings, component) / 100;
}

/** The organization's prices: the factor per component, and a key that changes when a discount does. */
export interface OrganizationPrices {
  factor: ComponentFactor;
  key: string;
}

export function organizationPrices(settings: OrganizationSettings): OrganizationPrices {
  const { aws_discount_pct, azure_discount_pct, gcp_discount_pct, dbu_discount_pct } = settings;
  return {
    factor: discountFactor(settings),
    key: [aws_discount_pct, azure_discount_pct, gcp_discount_pct, dbu_discount_pct].join(':'),
  };
}

/** List prices: every component at its amount. */
export const listPrices: OrganizationPrices = { factor: () => 1, key: 'list' };
