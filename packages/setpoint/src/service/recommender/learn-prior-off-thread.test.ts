import { createRandom } from '@setpoint/foundation/random';
import { describe, expect, it, vi } from 'vitest';
import { startWorker } from '../../eventlog/worker/start-worker.js';
import { learnCalibratedPrior } from '../../optimizer/calibrated-prior.js';
import { type FleetJob, reviveFleetPrior } from '../../optimizer/fleet-prior.js';
import { RuntimeModel } from '../../optimizer/runtime-model.js';
import { shippedCalibration } from '../../optimizer/shipped-fleet/shipped-calibration.js';
import { shippedFleetSources, shippedSourceBuilds } from '../../optimizer/shipped-fleet/shipped-fleet.js';
import { shippedSources } from '../../optimizer/shipped-fleet/shipped-fleet-data.js';
import { type Candidate, runCostUsd } from '../../optimizer/types.js';
import { fleetPriorWorkerLimits, learnPriorOffThread } from './learn-prior-off-thread.js';

// records the options every worker is started with
vi.mock('../../eventlog/worker/start-worker.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../eventlog/worker/start-worker.js')>();
  return { ...original, startWorker: vi.fn(original.startWorker) };
});

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

/** Amdahl-shaped jobs measured on half the catalog, so the analogs must interpolate the rest. */
function fleet(jobs: number, seed: number): FleetJob[] {
  const random = createRandom(seed);
  return Array.from({ length: jobs }, (_, j) => ({
    source: `job-${j}`,
    candidates: catalog,
    observations: catalog
      .filter((_, i) => (i + j) % 2 === 0)
      .map((candidate) => {
        const runtimeS =
          (40 + 15 * j + (20_000 * (1 + (j % 4))) / (candidate.nodes * 4)) * Math.exp(0.1 * random.normal());
        return {
          candidateId: candidate.id,
          runtimeS,
          costUsd: runCostUsd(candidate, runtimeS),
          completed: true,
        };
      }),
  }));
}

describe('learnPriorOffThread', () => {
  const jobs = fleet(8, 7);

  it('returns the prior learned in-process, with working classes, from a worker thread', async () => {
    const offThread = await learnPriorOffThread(jobs);
    const inProcess = learnCalibratedPrior(jobs);
    expect(offThread.analogs.length).toBe(inProcess.analogs.length);
    expect(offThread.analogs.length).toBeGreaterThan(0);
    for (const [i, analog] of offThread.analogs.entries()) {
      const expected = inProcess.analogs[i];
      for (const candidate of catalog) {
        expect(analog.logRuntime(candidate)).toBeCloseTo(expected?.logRuntime(candidate) as number, 10);
        expect(analog.failureRate(candidate)).toBe(expected?.failureRate(candidate));
      }
    }
    expect(Array.from(offThread.space.basis(catalog[3] as Candidate))).toEqual(
      Array.from(inProcess.space.basis(catalog[3] as Candidate)),
    );
    expect(offThread.calibration).toEqual(inProcess.calibration);
    const observed = jobs[0]?.observations.slice(0, 3) ?? [];
    const predict = (prior: typeof offThread) => {
      const mixture = new RuntimeModel(prior, catalog).predict(observed);
      return catalog.map((_, i) => mixture.quantile(i, 0.5));
    };
    expect(predict(offThread)).toEqual(predict(inProcess));
  });

  it('puts the shipped fleet before the given jobs on the worker, never building it on the calling thread', async () => {
    // the smallest shipped source keeps the learning short; the service learns with all of them
    const kept = 'synthetic';
    const own = jobs.slice(0, 2);
    const builds = shippedSourceBuilds();
    const prior = await learnPriorOffThread(own, {
      shipped: { exclude: shippedFleetSources.filter((source) => source !== kept) },
    });
    expect(shippedSourceBuilds()).toBe(builds);
    const keptJobs = shippedSources.find((source) => source.name === kept)?.jobs.length ?? 0;
    expect(keptJobs).toBeGreaterThan(0);
    expect(prior.jobs).toBe(keptJobs + own.length);
    expect(prior.shippedJobs).toBe(keptJobs);
    expect(prior.analogs.some((analog) => analog.source.startsWith(`${kept}:`))).toBe(true);
    expect(prior.analogs.some((analog) => analog.source === own[0]?.source)).toBe(true);
  }, 120_000);

  it('takes the calibration learned when the fleet was built for the whole shipped fleet alone', async () => {
    const prior = await learnPriorOffThread([], { shipped: { exclude: [] } });
    expect(prior.calibration).toEqual(shippedCalibration);
    expect(prior.calibration.cases).toBeGreaterThan(0);
    expect(prior.jobs).toBe(shippedSources.reduce((sum, source) => sum + source.jobs.length, 0));
    expect(prior.shippedJobs).toBe(prior.jobs);
  });

  it('learns on a worker whose heap is bounded, old and young generation alike', async () => {
    vi.mocked(startWorker).mockClear();
    await learnPriorOffThread(jobs.slice(0, 2));
    const [name, , options] = vi.mocked(startWorker).mock.calls[0] ?? [];
    expect(name).toBe('./fleet-prior-worker');
    expect(options?.resourceLimits).toEqual(fleetPriorWorkerLimits);
    expect(fleetPriorWorkerLimits.maxYoungGenerationSizeMb).toBeLessThanOrEqual(16);
    expect(fleetPriorWorkerLimits.maxOldGenerationSizeMb).toBeLessThanOrEqual(512);
  });

  it('fails with a clear error, not a crash, when the learning needs more heap than its bound', async () => {
    const learning = learnPriorOffThread(jobs, {
      shipped: { exclude: [] },
      limits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 1 },
    });
    await expect(learning).rejects.toMatchObject({
      code: 'FLEET_PRIOR_WORKER_FAILED',
      message: 'learning the fleet prior needs more than 8 MiB of heap',
    });
  }, 60_000);

  it('revives a structured clone into a prior that predicts like the original', () => {
    const prior = learnCalibratedPrior(jobs.slice(0, 4));
    const revived = reviveFleetPrior(structuredClone(prior));
    const candidate = catalog[5] as Candidate;
    expect(revived.analogs.map((analog) => analog.logRuntime(candidate))).toEqual(
      prior.analogs.map((analog) => analog.logRuntime(candidate)),
    );
    // without reviving, the clone has lost its methods
    expect(typeof (structuredClone(prior).analogs[0] as { logRuntime?: unknown }).logRuntime).toBe(
      'undefined',
    );
  });
});
