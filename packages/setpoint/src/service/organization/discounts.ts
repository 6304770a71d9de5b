import type { OrganizationSettings } from '@setpoint/api-contract';

/** Figures at list prices for the projects of one cloud (null when their workspace is unknown). */
export interface ListPriceFigures {
  cloud: string | null;
  cloudUsd: number;
  dbuUsd: number;
  savingsToDateUsd: number;
  projected12MonthSavingsUsd: number;
}

export interface DiscountedFigures {
  cloudUsd: number;
  dbuUsd: number;
  totalUsd: number;
  savingsToDateUsd: number;
  projected12MonthSavingsUsd: number;
}

/** Percent off the cloud bill for a cloud; projects without a known cloud pay list price. */
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
 * Organization figures at the organization's own prices: cloud charges less the cloud's discount,
 * DBUs less the DBU discount. Savings are a share of spend, so each cloud's savings scale by the
 * ratio of its discounted to its list spend (the cloud/DBU mix of the savings follows the spend's).
 */
export function applyDiscounts(
  groups: ListPriceFigures[],
  settings: OrganizationSettings,
): DiscountedFigures {
  const out: DiscountedFigures = {
    cloudUsd: 0,
    dbuUsd: 0,
    totalUsd: 0,
    savingsToDateUsd: 0,
    projected12MonthSavingsUsd: 0,
  };
  const dbuFactor = 1 - settings.dbu_discount_pct / 100;
  for (const group of groups) {
    const cloudUsd = group.cloudUsd * (1 - cloudDiscountPct(settings, group.cloud) / 100);
    const dbuUsd = group.dbuUsd * dbuFactor;
    const listTotal = group.cloudUsd + group.dbuUsd;
    const ratio = listTotal > 0 ? (cloudUsd + dbuUsd) / listTotal : (1 + dbuFactor) / 2;
    out.cloudUsd += cloudUsd;
    out.dbuUsd += dbuUsd;
    out.savingsToDateUsd += group.savingsToDateUsd * ratio;
    out.projected12MonthSavingsUsd += group.projected12MonthSavingsUsd * ratio;
  }
  out.totalUsd = out.cloudUsd + out.dbuUsd;
  return out;
}
