import { describe, expect, it } from 'vitest';
import { formatCostComponent, formatUnitPrice, kindsWithCost } from '../../web/src/lib/cost-kinds.js';
import { costComponent } from '../support/run-costs.js';

describe('cost kinds on the page', () => {
  it('lists the kinds that carry money, compute first, whatever the platform', () => {
    const zero = { compute: 0, platform_fee: 0, storage: 0, network: 0, other: 0 };
    expect(
      kindsWithCost([
        { ...zero, storage: 1 },
        { ...zero, platform_fee: 2, compute: 3 },
      ]),
    ).toEqual(['compute', 'platform_fee', 'storage']);
    expect(kindsWithCost([zero])).toEqual([]);
  });

  it('writes a component as quantity × unit price = amount, and says when it is as billed', () => {
    expect(
      formatCostComponent(
        costComponent('compute', 0.48, {
          description: 'm5.xlarge, on-demand',
          quantity: 2.5,
          unit_price_usd: 0.192,
        }),
      ),
    ).toBe('m5.xlarge, on-demand: 2.5 node-hours × $0.192 = $0.48');
    expect(
      formatCostComponent(
        costComponent('platform_fee', 1.8, {
          description: 'DBUs, m5.xlarge',
          quantity: 1,
          unit: 'DBU',
          unit_price_usd: 1.8,
          estimated_usd: 2,
        }),
      ),
    ).toBe('DBUs, m5.xlarge: 1 DBU × $1.8 = $1.80 (as billed; estimated $2.00)');
    expect(formatUnitPrice(0.08 / 730)).toBe('$0.00011');
  });
});
