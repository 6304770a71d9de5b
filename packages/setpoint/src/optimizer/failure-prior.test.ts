import { describe, expect, it } from 'vitest';
import { conditionalFailure, learnFailurePrior, memoryShape } from './failure-prior.js';
import type { Candidate } from './types.js';

const node = (type: string, memoryPerCore: number, nodes: number): Candidate => ({
  id: `${nodes}x${type}`,
  instanceType: type,
  engine: 'standard' as const,
  storage: null,
  nodes,
  vcpusPerNode: 4,
  memoryGibPerNode: 4 * memoryPerCore,
  priceUsdPerNodeHour: 0.2,
});
const compute = node('c5.xlarge', 2, 4);
const general = node('m5.xlarge', 4, 4);
const memory = node('r5.xlarge', 8, 4);

/** Fleet jobs that ran the three shapes; `hungry` of them fail whenever a core has only 2 GiB. */
function fleet(jobs: number, hungry: number) {
  return Array.from({ length: jobs }, (_, j) =>
    [compute, general, memory].map((candidate) => ({
      candidate,
      runs: 2,
      failures: j < hungry && candidate === compute ? 2 : 0,
    })),
  );
}

describe('the fleet failure prior', () => {
  it('bins configurations by memory per core and total memory', () => {
    expect(memoryShape(compute)).not.toBe(memoryShape(general));
    expect(memoryShape(node('x.large', 2, 8))).not.toBe(memoryShape(compute));
  });

  it('reads how often fleet jobs that worked on a shape failed on a smaller one', () => {
    const common = learnFailurePrior(fleet(20, 10));
    const rare = learnFailurePrior(fleet(20, 1));
    expect(conditionalFailure(common, compute, general)).toBeGreaterThan(0.35);
    expect(conditionalFailure(rare, compute, general)).toBeLessThan(0.15);
    expect(conditionalFailure(rare, compute, general)).toBeGreaterThan(0.02);
  });

  it('keeps only the base rate for a configuration with at least the memory of one that worked', () => {
    const prior = learnFailurePrior(fleet(20, 10));
    expect(conditionalFailure(prior, memory, general)).toBe(prior.baseRate);
    expect(prior.baseRate).toBeLessThan(0.05);
  });

  it('falls back on the memory-shortfall model for shapes no fleet job ran', () => {
    const prior = learnFailurePrior(fleet(20, 10));
    const tiny = node('t.small', 0.5, 1);
    expect(conditionalFailure(prior, tiny, general)).toBeGreaterThan(
      conditionalFailure(prior, compute, memory) * 0.5,
    );
    expect(conditionalFailure(prior, tiny, general)).toBeGreaterThan(0.3);
  });
});
