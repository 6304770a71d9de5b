import { describe, expect, it } from 'vitest';
import { applyDiscounts, cloudDiscountPct } from './discounts.js';
import { defaultOrganizationSettings } from './organization-settings.js';

const settings = {
  ...defaultOrganizationSettings(),
  aws_discount_pct: 20,
  azure_discount_pct: 10,
  dbu_discount_pct: 50,
};

describe('organization discounts', () => {
  it('leaves list prices alone when no discount is set', () => {
    const figures = applyDiscounts(
      [{ cloud: 'aws', cloudUsd: 30, dbuUsd: 70, savingsToDateUsd: 12, projected12MonthSavingsUsd: 40 }],
      defaultOrganizationSettings(),
    );
    expect(figures).toEqual({
      cloudUsd: 30,
      dbuUsd: 70,
      totalUsd: 100,
      savingsToDateUsd: 12,
      projected12MonthSavingsUsd: 40,
    });
  });

  it("takes each cloud's discount off its cloud charges and the DBU discount off every DBU charge", () => {
    const figures = applyDiscounts(
      [
        { cloud: 'aws', cloudUsd: 100, dbuUsd: 100, savingsToDateUsd: 0, projected12MonthSavingsUsd: 0 },
        { cloud: 'azure', cloudUsd: 100, dbuUsd: 0, savingsToDateUsd: 0, projected12MonthSavingsUsd: 0 },
        { cloud: null, cloudUsd: 10, dbuUsd: 10, savingsToDateUsd: 0, projected12MonthSavingsUsd: 0 },
      ],
      settings,
    );
    expect(figures.cloudUsd).toBeCloseTo(80 + 90 + 10, 9);
    expect(figures.dbuUsd).toBeCloseTo(50 + 0 + 5, 9);
    expect(figures.totalUsd).toBeCloseTo(figures.cloudUsd + figures.dbuUsd, 9);
  });

  it("scales a cloud's savings by its discounted share of spend", () => {
    const figures = applyDiscounts(
      [{ cloud: 'AWS', cloudUsd: 50, dbuUsd: 50, savingsToDateUsd: 10, projected12MonthSavingsUsd: 100 }],
      settings,
    );
    // (50 × 0.8 + 50 × 0.5) / 100 = 0.65 of list price.
    expect(figures.savingsToDateUsd).toBeCloseTo(6.5, 9);
    expect(figures.projected12MonthSavingsUsd).toBeCloseTo(65, 9);
  });

  it('knows the discount of each cloud by name, whatever its case', () => {
    expect(cloudDiscountPct(settings, 'Azure')).toBe(10);
    expect(cloudDiscountPct(settings, 'aws')).toBe(20);
    expect(cloudDiscountPct(settings, 'on-prem')).toBe(0);
    expect(cloudDiscountPct(settings, null)).toBe(0);
  });
});
