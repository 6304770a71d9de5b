import { describe, expect, it } from 'vitest';
import { shippedFleet, shippedFleetSources, shippedSourceBuilds } from './shipped-fleet.js';
import { shippedSources } from './shipped-fleet-data.js';

describe('the shipped fleet', () => {
  it('holds the public and generated sweeps, one job per workload, named by source', () => {
    expect(shippedFleetSources).toEqual(['scout', 'synthetic', 'emulator']);
    const jobs = shippedFleet();
    expect(jobs).toHaveLength(shippedSources.reduce((sum, source) => sum + source.jobs.length, 0));
    expect(jobs.filter((job) => job.source?.startsWith('scout:'))).toHaveLength(18);
    expect(jobs.map((job) => job.source)).toContain('scout:join-spark-bigdata');
  });

  it('leaves out the sources it is asked to (leave-one-dataset-out)', () => {
    const jobs = shippedFleet({ exclude: ['scout'] });
    expect(jobs.some((job) => job.source?.startsWith('scout:'))).toBe(false);
    expect(jobs.some((job) => job.source?.startsWith('emulator:'))).toBe(true);
  });

  it('reproduces each configuration’s runs, failures, mean and spread of ln(runtime)', () => {
    const source = shippedSources.find((entry) => entry.name === 'emulator');
    const shipped = source?.jobs[0];
    const job = shippedFleet({ exclude: ['scout', 'synthetic'] })[0];
    expect(shipped && job).toBeTruthy();
    for (const [typeIndex, nodes, runs, failures, meanLog, scatter] of shipped?.configurations ?? []) {
      const id = `${nodes}x${source?.instanceTypes[typeIndex]?.[0]}`;
      const observations = job?.observations.filter((observation) => observation.candidateId === id) ?? [];
      expect(observations).toHaveLength(runs);
      expect(observations.filter((observation) => !observation.completed)).toHaveLength(failures);
      const logs = observations.filter((o) => o.completed).map((o) => Math.log(o.runtimeS));
      if (logs.length === 0) continue;
      const mean = logs.reduce((sum, value) => sum + value, 0) / logs.length;
      expect(mean).toBeCloseTo(meanLog, 6);
      expect(logs.reduce((sum, value) => sum + (value - mean) ** 2, 0)).toBeCloseTo(scatter, 6);
    }
  });

  it('builds each source’s jobs once per process and hands every caller the same frozen jobs', () => {
    const first = shippedFleet();
    const builds = shippedSourceBuilds();
    // the earlier tests of this file already asked for every source: each was built once, in the first
    expect(builds).toBe(shippedFleetSources.length);
    const second = shippedFleet();
    const heldOut = shippedFleet({ exclude: ['scout'] });
    expect(shippedSourceBuilds()).toBe(builds);
    expect(second).toEqual(first);
    expect(second.every((job, i) => job === first[i])).toBe(true);
    expect(heldOut[0]).toBe(first.find((job) => job.source === heldOut[0]?.source));
    expect(Object.isFrozen(first[0]) && Object.isFrozen(first[0]?.observations)).toBe(true);
  });
});
