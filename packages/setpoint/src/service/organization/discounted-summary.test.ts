import { describe, expect, it } from 'vitest';
import { discountedOrganizationSummary } from './discounted-summary.js';
import { defaultOrganizationSettings } from './organization-settings.js';

const summary = (cloudUsd: number, dbuUsd: number, savings: number, projects: number) => ({
  period: { from: 0, to: 1 },
  spend: { cloud_usd: cloudUsd, dbu_usd: dbuUsd, total_usd: cloudUsd + dbuUsd },
  roi: {
    projects,
    projects_with_savings: 1,
    savings_to_date_usd: savings,
    projected_12_month_savings_usd: savings * 10,
    methods: { cost_change: 1, cost_per_gb_change: 0 },
  },
});

describe('discounted organization summary', () => {
  it('adds up the clouds, with each one’s discount on its cloud spend and the DBU discount on all DBUs', () => {
    const settings = {
      ...defaultOrganizationSettings(),
      aws_discount_pct: 10,
      azure_discount_pct: 50,
      dbu_discount_pct: 20,
    };

    const result = discountedOrganizationSummary(
      { from: 5, to: 9 },
      [
        { cloud: 'aws', summary: summary(100, 100, 20, 3) },
        { cloud: 'azure', summary: summary(100, 0, 0, 2) },
      ],
      settings,
    );

    expect(result.period).toEqual({ from: 5, to: 9 });
    expect(result.spend.cloud_usd).toBeCloseTo(90 + 50, 9);
    expect(result.spend.dbu_usd).toBeCloseTo(80, 9);
    expect(result.spend.total_usd).toBeCloseTo(220, 9);
    expect(result.roi.savings_to_date_usd).toBeCloseTo(20 * 0.85, 9);
    expect(result.roi.projects).toBe(5);
    expect(result.roi.projects_with_savings).toBe(2);
    expect(result.roi.methods).toEqual({ cost_change: 2, cost_per_gb_change: 0 });
  });
});
