import { describe, expect, it } from 'vitest';
import { type CountedLoop, validityCounts } from './validity-counts.js';

const loopWith = (
  refusals: CountedLoop['emulator']['context']['state']['refusals'],
  parked: readonly { kind: string; error: string }[],
): CountedLoop => ({
  emulator: { context: { state: { refusals } } },
  server: { services: { parkedJobs: { list: async () => ({ items: parked }) } } },
});

describe('writes a platform would refuse, counted in a closed loop', () => {
  it('counts every refusal the emulator remembers and every apply Setpoint refused before writing', async () => {
    const counts = await validityCounts(
      loopWith(
        [
          {
            endpoint: '/api/2.2/jobs/update',
            rule: 'autoscale-bounds',
            message: 'max_workers must be greater than min_workers',
          },
        ],
        [
          {
            kind: 'project.apply',
            error:
              'cluster of Daily aggregation is not written: Databricks would refuse it (node-type-offered: …)',
          },
          { kind: 'project.apply', error: 'EMR cluster j-1 is not sent: EMR would refuse it (…)' },
          // parked for another reason: not a refused write
          { kind: 'project.apply', error: 'the workspace answered 503 five times' },
          { kind: 'run.collect', error: 'Databricks would refuse it' },
        ],
      ),
    );

    expect(counts.refusedByPlatform).toBe(1);
    expect(counts.refusedBySetpoint).toBe(2);
    expect(counts.examples).toEqual([
      '/api/2.2/jobs/update: autoscale-bounds: max_workers must be greater than min_workers',
      expect.stringMatching(/^project\.apply: cluster of Daily aggregation is not written/),
      expect.stringMatching(/^project\.apply: EMR cluster j-1 is not sent/),
    ]);
  });

  it('is 0 / 0 when nothing was refused', async () => {
    expect(await validityCounts(loopWith([], []))).toEqual({
      refusedByPlatform: 0,
      refusedBySetpoint: 0,
      examples: [],
    });
  });
});
