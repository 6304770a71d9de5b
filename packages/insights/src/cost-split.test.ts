import { expect, it } from 'vitest';
import { splitCostLines } from './cost-split.js';

it('splits the cost engine lines into cloud, DBU and the low–high range', () => {
  const split = splitCostLines(
    [
      { item: 'cloud compute', usd: 3.5 },
      { item: 'cloud storage', usd: 0.25 },
      { item: 'Databricks DBUs (12.50 DBU)', usd: 2 },
      { item: 'total low', usd: 5.1 },
      { item: 'total high', usd: 6.4 },
    ],
    5.75,
  );
  expect(split).toEqual({ cloudUsd: 3.75, dbuUsd: 2, totalUsd: 5.75, lowUsd: 5.1, highUsd: 6.4 });
  expect(splitCostLines([], 1)).toEqual({ cloudUsd: 0, dbuUsd: 0, totalUsd: 1, lowUsd: null, highUsd: null });
});
