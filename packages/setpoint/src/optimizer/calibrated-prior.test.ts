import { createRandom } from '@setpoint/foundation/random';
import { describe, expect, it } from 'vitest';
import { learnCalibratedPrior } from './calibrated-prior.js';
import type { FleetJob } from './fleet-prior.js';
import { nearBucket, sameConfigurationBucket } from './predictive-calibration.js';
import { type Candidate, runCostUsd } from './types.js';

const catalog: Candidate[] = ['m5.xlarge', 'c5.xlarge', 'r5.xlarge'].flatMap((type, f) =>
  [2, 3, 4, 6, 8, 12, 16].map((nodes) => ({
    id: `${nodes}x${type}`,
    instanceType: type,
    engine: 'standard' as const,
    storage: null,
    nodes,
    vcpusPerNode: 4,
    memoryGibPerNode: [16, 8, 32][f] as number,
    priceUsdPerNodeHour: [0.19, 0.17, 0.25][f] as number,
  })),
);

/** Amdahl-shaped jobs; each configuration measured `repeats` times with run-to-run noise of the given spread. */
function fleet(jobs: number, noise: number, seed: number, repeats = 1): FleetJob[] {
  const random = createRandom(seed);
  return Array.from({ length: jobs }, (_, j) => {
    const serial = 30 + 20 * j;
    const work = 20_000 * (1 + (j % 5));
    return {
      candidates: catalog,
      observations: catalog.flatMap((candidate) =>
        Array.from({ length: repeats }, () => {
          const runtimeS = (serial + work / (candidate.nodes * 4)) * Math.exp(noise * random.normal());
          return {
            candidateId: candidate.id,
            runtimeS,
            costUsd: runCostUsd(candidate, runtimeS),
            completed: true,
          };
        }),
      ),
    };
  });
}

describe('learnCalibratedPrior', () => {
  it('widens predictions for a fleet noisier than the model assumes and narrows them for a quiet one', () => {
    const noisy = learnCalibratedPrior(fleet(12, 0.35, 1), { scenariosPerFold: 12 });
    const quiet = learnCalibratedPrior(fleet(12, 0.01, 2), { scenariosPerFold: 12 });
    expect(noisy.calibration.cases).toBeGreaterThan(100);
    const mean = (rows: number[][]) =>
      rows.flat().reduce((sum, value) => sum + value, 0) / rows.flat().length;
    // once three configurations pin a job's shape, what is left is run-to-run noise: widened for the noisy fleet
    expect(Math.min(...(noisy.calibration.spreadScale[2] as number[]))).toBeGreaterThan(1);
    expect(Math.max(...quiet.calibration.spreadScale.flat())).toBeLessThan(1);
    expect(mean(noisy.calibration.spreadScale)).toBeGreaterThan(2 * mean(quiet.calibration.spreadScale));
  });

  it('calibrates a run again on a configuration the job ran on the fleet’s repeats, else as a near one', () => {
    const [self, near] = [sameConfigurationBucket, nearBucket];
    const repeated = learnCalibratedPrior(fleet(12, 0.01, 5, 3), { scenariosPerFold: 12 }).calibration;
    const once = learnCalibratedPrior(fleet(12, 0.01, 5, 1), { scenariosPerFold: 12 }).calibration;
    // quiet repeats: the noise the fleet's repeats show is what a run again varies by (near 1), while
    // predictions elsewhere are narrowed
    for (const row of repeated.spreadScale) {
      expect(row[self]).toBeGreaterThanOrEqual(0.8);
      expect(row[self]).toBeGreaterThan(row[near] as number);
    }
    for (const row of once.spreadScale) expect(row[self]).toBe(row[near]);
  });

  it('leaves the prior uncalibrated when the fleet is too small to hold jobs out', () => {
    const small = learnCalibratedPrior(fleet(4, 0.05, 3));
    expect(small.calibration.cases).toBe(0);
    expect(small.calibration.spreadScale.flat().every((scale) => scale === 1)).toBe(true);
  });

  it('is deterministic for a fleet', () => {
    const a = learnCalibratedPrior(fleet(8, 0.1, 4), { scenariosPerFold: 6 });
    const b = learnCalibratedPrior(fleet(8, 0.1, 4), { scenariosPerFold: 6 });
    expect(a.calibration).toEqual(b.calibration);
  });
});
