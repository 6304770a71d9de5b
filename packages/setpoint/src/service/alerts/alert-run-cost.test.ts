import { describe, expect, it } from 'vitest';
import { costOf } from './alert-service.js';

describe('the cost a run-based alert reads', () => {
  it('is the stored total, or none when the run is not costed or its cost still waits for the bill', () => {
    expect(costOf(JSON.stringify({ totalUsd: 1.25 }))).toBe(1.25);
    expect(costOf(null)).toBeNull();
    // a pending serverless cost is stored as 0: a cost-spike window must not average it in
    expect(costOf(JSON.stringify({ totalUsd: 0, pending: { reason: 'awaiting the bill' } }))).toBeNull();
    expect(costOf(JSON.stringify({ totalUsd: 0.8, pending: null }))).toBe(0.8);
  });
});
