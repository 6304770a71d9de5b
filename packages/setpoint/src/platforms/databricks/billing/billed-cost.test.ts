import { describe, expect, it } from 'vitest';
import { billedCost, estimateLineItem } from './billed-cost.js';

const estimated = {
  currency: 'USD' as const,
  totalUsd: 10,
  lines: [
    { item: 'cloud compute', usd: 7 },
    { item: 'cloud storage', usd: 1 },
    { item: 'Databricks DBUs (13.33 DBU)', usd: 2 },
    { item: 'total low', usd: 9 },
    { item: 'total high', usd: 11 },
  ],
};

describe('a run cost with DBUs as billed', () => {
  it('scales the DBU line by billed / estimated for the cluster and moves the totals by the same amount', () => {
    const billed = billedCost(estimated, { estimatedDbuUsd: 2.5, billedDbuUsd: 2.25, billedDbus: 15 })!;
    expect(billed.lines.find((line) => line.item.startsWith('Databricks DBUs as billed'))?.usd).toBeCloseTo(
      1.8,
      9,
    );
    expect(billed.totalUsd).toBeCloseTo(9.8, 9);
    expect(billed.lines.find((line) => line.item === 'total low')?.usd).toBeCloseTo(8.8, 9);
    expect(billed.lines.find((line) => line.item === estimateLineItem)?.usd).toBe(2);
  });

  it('a restatement revises from the kept estimate, not from the earlier bill', () => {
    const first = billedCost(estimated, { estimatedDbuUsd: 2.5, billedDbuUsd: 3, billedDbus: 20 })!;
    const restated = billedCost(first, { estimatedDbuUsd: 2.5, billedDbuUsd: 2.5, billedDbus: 16.7 })!;
    expect(restated.totalUsd).toBeCloseTo(10, 9);
    expect(restated.lines.filter((line) => line.item === estimateLineItem)).toHaveLength(1);
    expect(restated.lines.filter((line) => line.item.startsWith('Databricks DBUs'))).toHaveLength(1);
  });

  it('leaves a cost without a DBU line or an estimate of zero alone', () => {
    expect(
      billedCost({ ...estimated, lines: [] }, { estimatedDbuUsd: 1, billedDbuUsd: 1, billedDbus: 1 }),
    ).toBeUndefined();
    expect(billedCost(estimated, { estimatedDbuUsd: 0, billedDbuUsd: 1, billedDbus: 1 })).toBeUndefined();
  });
});
