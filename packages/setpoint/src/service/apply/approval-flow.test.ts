import { describe, expect, it } from 'vitest';
import { waitsForApproval } from './approval-flow.js';

const learningRun = (active: boolean) =>
  ({ action: 'change', learning: { active, run: 2, maxRuns: 8, missesSpent: 0, missBudget: 3 } }) as never;

describe('waitsForApproval', () => {
  it('holds only learning runs that change the cluster, and only in approve-learning', () => {
    expect(waitsForApproval('approve-learning', { phase: 'LEARNING', decision: learningRun(true) })).toBe(
      true,
    );
    expect(waitsForApproval('approve-learning', { phase: 'OPTIMIZING', decision: learningRun(false) })).toBe(
      false,
    );
    expect(waitsForApproval('auto', { phase: 'LEARNING', decision: learningRun(true) })).toBe(false);
    expect(waitsForApproval('manual', { phase: 'LEARNING', decision: learningRun(true) })).toBe(false);
    // a keep writes nothing: nothing to approve
    expect(
      waitsForApproval('approve-learning', {
        phase: 'LEARNING',
        decision: { ...(learningRun(true) as object), action: 'keep' } as never,
      }),
    ).toBe(false);
    // a recommendation whose decision does not say is taken for a learning run while the project learns
    expect(waitsForApproval('approve-learning', { phase: 'LEARNING', decision: null })).toBe(true);
    expect(waitsForApproval('approve-learning', { phase: 'OPTIMIZING', decision: null })).toBe(false);
  });
});
