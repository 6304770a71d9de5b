import { describe, expect, it } from 'vitest';
import type { RunProfile } from '../../../eventlog/run-profile.js';
import { genericPhotonSpeedupPrior, photonSpeedupPriorOf } from './photon-trial.js';

/** A profile with only what the prior reads: each stage's name, task time and executor CPU time. */
function profileOf(stages: Array<{ name: string; runS: number; cpuS: number }>): RunProfile {
  return {
    stages: stages.map((stage, stageId) => ({
      stageId,
      name: stage.name,
      executorRunTimeMs: stage.runS * 1000,
      executorCpuTimeMs: stage.cpuS * 1000,
    })),
  } as unknown as RunProfile;
}

describe('photonSpeedupPriorOf', () => {
  it('gives a CPU-bound SQL job much, an I/O-bound scan little, and carries the share into its words', () => {
    const sql = photonSpeedupPriorOf(
      profileOf([
        { name: 'scan fact table', runS: 700, cpuS: 630 },
        { name: 'hash join and aggregate', runS: 300, cpuS: 270 },
      ]),
    );
    const scan = photonSpeedupPriorOf(profileOf([{ name: 'scan and filter', runS: 1000, cpuS: 80 }]));
    // 90% CPU: 1 / (0.1 + 0.9 / 3) = 2.5 at the median, 1 / (0.1 + 0.9 / 6) = 4 at the 90th percentile
    expect(sql).toMatchObject({ low: 1, mid: 2.5, high: 4, ofJob: true });
    expect(sql.source).toMatch(/90% of executor task time is CPU work Photon runs/);
    // 8% CPU: the scan waits on storage, which Photon does not speed up
    expect(scan.mid).toBeLessThan(1.1);
    expect(scan.high).toBeLessThan(1.1);
  });

  it('leaves Python UDF stages out of what Photon may speed up', () => {
    const udf = photonSpeedupPriorOf(
      profileOf([
        { name: 'score features (python udf)', runS: 950, cpuS: 940 },
        { name: 'reduce gradients', runS: 50, cpuS: 40 },
      ]),
    );
    expect(udf.mid).toBeLessThan(1.05);
    expect(udf.source).toMatch(/ 4% of executor task time/);
  });

  it('falls back to the generic prior when the run has no task metrics, which no savings trial may use', () => {
    expect(photonSpeedupPriorOf(null)).toBe(genericPhotonSpeedupPrior);
    expect(photonSpeedupPriorOf(profileOf([]))).toBe(genericPhotonSpeedupPrior);
    expect(photonSpeedupPriorOf(profileOf([{ name: 'scan', runS: 100, cpuS: 0 }]))).toBe(
      genericPhotonSpeedupPrior,
    );
    expect(genericPhotonSpeedupPrior.ofJob).toBe(false);
  });
});
