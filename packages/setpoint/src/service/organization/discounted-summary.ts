import type { OrganizationSettings, OrganizationSummaryWire } from '@setpoint/api-contract';
import { applyDiscounts } from './discounts.js';

/**
 * One organization summary from the summaries of each cloud's projects (at list prices), with the
 * organization's discounts applied to spend and savings. Counts add up unchanged.
 */
export function discountedOrganizationSummary(
  period: { from: number; to: number },
  byCloud: Array<{ cloud: string | null; summary: OrganizationSummaryWire }>,
  settings: OrganizationSettings,
): OrganizationSummaryWire {
  const figures = applyDiscounts(
    byCloud.map(({ cloud, summary }) => ({
      cloud,
      cloudUsd: summary.spend.cloud_usd,
      dbuUsd: summary.spend.dbu_usd,
      savingsToDateUsd: summary.roi.savings_to_date_usd,
      projected12MonthSavingsUsd: summary.roi.projected_12_month_savings_usd,
    })),
    settings,
  );
  const sum = (pick: (summary: OrganizationSummaryWire) => number) =>
    byCloud.reduce((total, { summary }) => total + pick(summary), 0);
  return {
    period,
    spend: { cloud_usd: figures.cloudUsd, dbu_usd: figures.dbuUsd, total_usd: figures.totalUsd },
    roi: {
      projects: sum((summary) => summary.roi.projects),
      projects_with_savings: sum((summary) => summary.roi.projects_with_savings),
      savings_to_date_usd: figures.savingsToDateUsd,
      projected_12_month_savings_usd: figures.projected12MonthSavingsUsd,
      methods: {
        cost_change: sum((summary) => summary.roi.methods.cost_change),
        cost_per_gb_change: sum((summary) => summary.roi.methods.cost_per_gb_change),
      },
    },
  };
}
