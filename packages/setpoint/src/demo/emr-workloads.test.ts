import { describe, expect, it } from 'vitest';
import { randomColdStartGroups } from './emr-workloads.js';

const handSized = [
  { InstanceRole: 'MASTER', InstanceType: 'm5.xlarge', InstanceCount: 1 },
  { InstanceRole: 'CORE', InstanceType: 'r5.2xlarge', InstanceCount: 2 },
  { InstanceRole: 'TASK', Market: 'SPOT', InstanceType: 'r5.2xlarge', InstanceCount: 6 },
] as const;

describe('random EMR cold starts', () => {
  it('keeps the primary node and gives 2–7 core and 0–6 on-demand task nodes of one type', () => {
    for (let seed = 1; seed <= 12; seed += 1)
      for (let index = 0; index < 3; index += 1) {
        const groups = randomColdStartGroups(handSized, seed, index);
        expect(groups[0]).toEqual(handSized[0]);
        const core = groups.find((group) => group.InstanceRole === 'CORE')!;
        const task = groups.find((group) => group.InstanceRole === 'TASK');
        expect(core.InstanceCount).toBeGreaterThanOrEqual(2);
        expect(core.InstanceCount).toBeLessThanOrEqual(7);
        if (task) {
          expect(task.InstanceType).toBe(core.InstanceType);
          expect(task.InstanceCount).toBeGreaterThan(0);
          expect(task.InstanceCount).toBeLessThanOrEqual(6);
          expect(task.Market).toBeUndefined();
        }
      }
  });

  it('differs from seed to seed and from workload to workload, the same for the same pair', () => {
    const shape = (seed: number, index: number) =>
      JSON.stringify(randomColdStartGroups(handSized, seed, index));
    expect(new Set([1, 2, 3, 4].map((seed) => shape(seed, 0))).size).toBeGreaterThan(2);
    expect(new Set([0, 1, 2].map((index) => shape(1, index))).size).toBe(3);
    expect(shape(5, 1)).toBe(shape(5, 1));
  });
});
