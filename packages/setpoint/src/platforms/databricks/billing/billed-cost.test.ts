import { describe, expect, it } from 'vitest';
import { costComponent } from '../../../../../../tests/support/run-costs.js';
import { billedCost } from './billed-cost.js';

const dbus = { fee: 'dbu', billed_by: 'platform' as const, quantity: 13.33, unit: 'DBU' };
const estimated = {
  currency: 'USD' as const,
  totalUsd: 10,
  lowUsd: 9,
  highUsd: 11,
  components: [
    costComponent('compute', 7, { low_usd: 6, high_usd: 8 }),
    costComponent('storage', 1),
    costComponent('platform_fee', 2, dbus),
  ],
};

const dbuOf = (cost: typeof estimated) => cost.components.filter((c) => c.fee === 'dbu');

describe('a run cost with DBUs as billed', () => {
  it('scales the DBU component by billed / estimated for the cluster and moves the totals by the same amount', () => {
    const billed = billedCost(estimated, { estimatedDbuUsd: 2.5, billedDbuUsd: 2.25, billedDbus: 15 })!;
    const [dbu] = dbuOf(billed);
    expect(dbu?.usd).toBeCloseTo(1.8, 9);
    expect(dbu?.estimated_usd).toBe(2);
    expect(dbu?.unit_price_usd).toBeCloseTo(1.8 / 13.33, 9);
    expect(billed.totalUsd).toBeCloseTo(9.8, 9);
    expect(billed.lowUsd).toBeCloseTo(8.8, 9);
    expect(billed.highUsd).toBeCloseTo(10.8, 9);
    // the other kinds are untouched
    expect(billed.components.filter((c) => c.kind !== 'platform_fee')).toEqual(
      estimated.components.slice(0, 2),
    );
  });

  it('a restatement revises from the kept estimate, not from the earlier bill', () => {
    const first = billedCost(estimated, { estimatedDbuUsd: 2.5, billedDbuUsd: 3, billedDbus: 20 })!;
    const restated = billedCost(first, { estimatedDbuUsd: 2.5, billedDbuUsd: 2.5, billedDbus: 16.7 })!;
    expect(restated.totalUsd).toBeCloseTo(10, 9);
    expect(dbuOf(restated)).toHaveLength(1);
    expect(dbuOf(restated)[0]?.estimated_usd).toBe(2);
  });

  it('leaves a cost without DBUs or an estimate of zero alone', () => {
    expect(
      billedCost(
        { ...estimated, components: estimated.components.slice(0, 2) },
        { estimatedDbuUsd: 1, billedDbuUsd: 1, billedDbus: 1 },
      ),
    ).toBeUndefined();
    expect(billedCost(estimated, { estimatedDbuUsd: 0, billedDbuUsd: 1, billedDbus: 1 })).toBeUndefined();
  });
});
