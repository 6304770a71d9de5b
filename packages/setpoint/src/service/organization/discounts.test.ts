import { spendInPeriod } from '@setpoint/insights';
import { describe, expect, it } from 'vitest';
import { costComponent } from '../../../../../tests/support/run-costs.js';
import { cloudDiscountPct, discountFactor, discountPct } from './discounts.js';
import { defaultOrganizationSettings } from './organization-settings.js';

const settings = {
  ...defaultOrganizationSettings(),
  aws_discount_pct: 20,
  azure_discount_pct: 10,
  dbu_discount_pct: 50,
};

describe('organization discounts', () => {
  it('leaves list prices alone when no discount is set', () => {
    const factor = discountFactor(defaultOrganizationSettings());
    expect(factor(costComponent('compute', 1))).toBe(1);
    expect(factor(costComponent('platform_fee', 1, { fee: 'dbu' }))).toBe(1);
  });

  it('takes off each component the discount of who bills it: the cloud, or the platform', () => {
    // machines, disks and a fee on the AWS invoice (EMR's) take the AWS discount; DBUs the platform discount
    expect(discountPct(settings, costComponent('compute', 1, { cloud: 'aws' }))).toBe(20);
    expect(discountPct(settings, costComponent('storage', 1, { cloud: 'azure' }))).toBe(10);
    expect(
      discountPct(settings, costComponent('platform_fee', 1, { fee: 'emr_fee', billed_by: 'cloud' })),
    ).toBe(20);
    expect(
      discountPct(settings, costComponent('platform_fee', 1, { fee: 'dbu', billed_by: 'platform' })),
    ).toBe(50);
    const spend = spendInPeriod(
      [
        {
          startedAt: 0,
          cost: {
            components: [
              costComponent('compute', 100),
              costComponent('platform_fee', 100, { fee: 'dbu' }),
              costComponent('platform_fee', 10, { fee: 'emr_fee', billed_by: 'cloud', platform: 'emr' }),
            ],
          },
        },
      ],
      0,
      1,
      discountFactor(settings),
    );
    expect(spend.by_kind.compute).toBeCloseTo(80, 9);
    expect(spend.by_kind.platform_fee).toBeCloseTo(50 + 8, 9);
    expect(spend.total_usd).toBeCloseTo(138, 9);
  });

  it('knows the discount of each cloud by name, whatever its case', () => {
    expect(cloudDiscountPct(settings, 'Azure')).toBe(10);
    expect(cloudDiscountPct(settings, 'aws')).toBe(20);
    expect(cloudDiscountPct(settings, 'on-prem')).toBe(0);
    expect(cloudDiscountPct(settings, null)).toBe(0);
  });
});
