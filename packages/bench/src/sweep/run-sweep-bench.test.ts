import { createRandom } from '@setpoint/foundation/random';
import type { SearchPolicyFactory } from 'setpoint/optimizer/search-policy';
import type { Observation } from 'setpoint/optimizer/types';
import { describe, expect, it } from 'vitest';
import { fleetFor, playEpisode, runSweepBench } from './run-sweep-bench.js';
import type { SweepCsvRow } from './schema.js';
import { groupSweepRows } from './sweep-dataset.js';
import { generateSyntheticSweep } from './synthetic-sweep.js';

function row(nodes: number, type: string, runtime: number, completed = true, workload = 'w'): SweepCsvRow {
  return {
    workload,
    instance_type: type,
    nodes,
    vcpus_per_node: 2,
    memory_gib_per_node: type.startsWith('c') ? 3.75 : 8,
    price_usd_per_node_hour: 0.1,
    runtime_s: runtime,
    completed,
  };
}

/** Costs: A 4×100 s, B 2×150 s (cheapest), C 8×60 s (fastest), D 1×400 s (= A's cost), E fails. */
const handmade = groupSweepRows([
  row(4, 'm.large', 100),
  row(2, 'm.large', 150),
  row(8, 'm.large', 60),
  row(1, 'm.large', 400),
  row(4, 'c.large', 30, false),
]);

describe('runSweepBench protocol', () => {
  const result = runSweepBench(handmade, {
    datasetName: 'handmade',
    slaFactors: ['1.1'],
    budget: 3,
    seeds: 2,
    optimizers: ['stay', 'random'],
  });

  it('uses every completed configuration as a cold start', () => {
    expect(result.workloads).toBe(1);
    expect(result.coldStarts).toBe(4);
  });

  it('computes the perfect one-shot saving from the cheapest configuration meeting s × the cold-start runtime', () => {
    // Only the cold start on D (400 s, SLA 440 s) can move: to B, 25% cheaper.
    expect(result.perfect['1.1']).toEqual({ medianSaving: 0, shareImprovable: 0.25 });
  });

  it('scores stay as never cheaper, never violating, and within 1.1× only where the cold start is optimal', () => {
    const stay = result.optimizers.stay?.['1.1'];
    expect(stay?.oneShot).toEqual({
      shareCheaper: 0,
      medianSaving: 0,
      p25Saving: 0,
      slaViolationRate: 0,
      failureRate: 0,
    });
    expect(stay?.search.pWithin110).toEqual({ '3': 0.75, '6': null, '10': null });
    expect(stay?.search.medianRunsToWithin110).toBe(1);
  });

  it('returns a failed run, with its elapsed time, when a policy picks a configuration that failed', () => {
    const failOnce: SearchPolicyFactory = () => ({ next: () => ({ candidateId: '4xc.large' }) });
    const episode = playEpisode(
      handmade[0]!,
      handmade[0]!.configs[0]!,
      110,
      2,
      failOnce,
      createRandom(1),
      createRandom(2),
    );
    expect(episode.runs[1]).toMatchObject({ configId: '4xc.large', completed: false });
  });

  it('is deterministic for a seed count', () => {
    const again = runSweepBench(handmade, {
      datasetName: 'handmade',
      slaFactors: ['1.1'],
      budget: 3,
      seeds: 2,
      optimizers: ['stay', 'random'],
    });
    expect(again).toEqual(result);
  });
});

describe('playEpisode', () => {
  it('spends the budget including the cold start and shows a policy only the runs it chose', () => {
    const seen: Observation[][] = [];
    const walker: SearchPolicyFactory = (context) => ({
      next(observations) {
        seen.push([...observations]);
        const tried = new Set(observations.map((o) => o.candidateId));
        return { candidateId: context.candidates.find((candidate) => !tried.has(candidate.id))!.id };
      },
    });
    const workload = handmade[0]!;
    const episode = playEpisode(
      workload,
      workload.configs[2]!,
      66,
      4,
      walker,
      createRandom(1),
      createRandom(2),
    );
    expect(episode.runs).toHaveLength(4);
    expect(episode.runs[0]?.configId).toBe('8xm.large');
    expect(seen.map((observations) => observations.length)).toEqual([1, 2, 3]);
    expect(seen[2]?.map((o) => o.candidateId)).toEqual(episode.runs.slice(0, 3).map((run) => run.configId));
  });

  it('draws a random repeat when a configuration was measured more than once', () => {
    const repeated = groupSweepRows([row(4, 'm.large', 100), row(4, 'm.large', 200), row(2, 'm.large', 150)]);
    const workload = repeated[0]!;
    const stayThere: SearchPolicyFactory = (context) => ({
      next: () => ({ candidateId: context.coldStartId }),
    });
    const runtimes = new Set<number>();
    for (let seed = 0; seed < 20; seed++) {
      const episode = playEpisode(
        workload,
        workload.configs[0]!,
        300,
        5,
        stayThere,
        createRandom(seed),
        createRandom(seed),
      );
      for (const run of episode.runs) runtimes.add(run.runtimeS);
    }
    expect([...runtimes].sort()).toEqual([100, 200]);
  });
});

describe('runSweepBench on a synthetic sweep', () => {
  const workloads = groupSweepRows(
    generateSyntheticSweep({ workloads: 3, repeats: 1, seed: 7, noise: 0.02, timeoutS: 7200 }),
  );

  it('reports every optimizer with the documented shape', () => {
    const result = runSweepBench(
      workloads.map((w) => ({ ...w, configs: w.configs.slice(0, 24) })),
      {
        datasetName: 'synthetic',
        slaFactors: ['1.1', '1.25'],
        budget: 6,
        seeds: 1,
        optimizers: ['setpoint', 'gp-ei', 'random', 'stay'],
        fleet: 'dataset',
      },
    );
    expect(Object.keys(result)).toEqual([
      'dataset',
      'fleet',
      'workloads',
      'coldStarts',
      'perfect',
      'optimizers',
    ]);
    expect(result.fleet).toBe('dataset (leave-one-workload-out)');
    expect(Object.keys(result.optimizers)).toEqual(['setpoint', 'gp-ei', 'random', 'stay']);
    const setpoint = result.optimizers.setpoint?.['1.1'];
    expect(Object.keys(setpoint ?? {})).toEqual([
      'oneShot',
      'search',
      'slaViolationRateAfterLearning',
      'learning',
      'afterFirstRecommendation',
      'slaViolationRateAfterFirstRecommendation',
      'calibration',
    ]);
    // every run from the first recommendation's on, learning or not: 5 of each 6-run episode
    const everyRun = setpoint?.afterFirstRecommendation;
    expect(everyRun?.runs).toBe(result.coldStarts * 5);
    expect(setpoint?.slaViolationRateAfterFirstRecommendation).toBe(everyRun?.slaViolationRate);
    expect(everyRun?.runtimeOverSla.max).toBeGreaterThanOrEqual(everyRun?.runtimeOverSla.p99 ?? 0);
    // staying captures nothing and loses nothing
    expect(result.optimizers.stay?.['1.1']?.afterFirstRecommendation.capturedSaving).toBe(0);
    // Setpoint claims a probability for every run it asks for; the baselines claim nothing.
    expect(setpoint?.calibration.first.claims).toBe(result.coldStarts);
    // one run per configuration: a first run cheaper than the cold start left its configuration
    const moved = setpoint?.calibration.firstMove.claims ?? 0;
    expect(moved).toBeGreaterThanOrEqual(
      Math.round((setpoint?.oneShot.shareCheaper ?? 1) * result.coldStarts),
    );
    expect(moved).toBeGreaterThan(0);
    expect(moved).toBeLessThanOrEqual(result.coldStarts);
    expect(result.optimizers['gp-ei']?.['1.1']?.calibration.first.claims).toBe(0);
    expect(Object.keys(setpoint?.search.pWithin110 ?? {})).toEqual(['3', '6', '10']);
    expect(setpoint?.search.pWithin110['10']).toBeNull();
    for (const name of ['setpoint', 'gp-ei', 'random'] as const) {
      const within = result.optimizers[name]?.['1.1']?.search.pWithin110;
      expect(within?.['6']).toBeGreaterThanOrEqual(within?.['3'] ?? 0);
    }
    // Runs 3–6 split into learning and after-learning runs; the baselines learn for 2 of them (runs 3–4).
    const gpEi = result.optimizers['gp-ei']?.['1.1'];
    expect(gpEi?.learning.shareOfRuns).toBe(0.5);
    expect(setpoint?.learning.shareOfRuns).toBeGreaterThan(0);
  });
});

describe('fleetFor (leave-one-workload-out)', () => {
  it('gives a workload every other workload as its fleet, never itself', () => {
    const workloads = groupSweepRows([
      row(4, 'm.large', 100, true, 'a'),
      row(2, 'm.large', 150, true, 'b'),
      row(8, 'm.large', 60, true, 'c'),
      row(8, 'm.large', 61, true, 'c'),
    ]);
    const fleet = fleetFor(workloads, workloads[2]!);
    expect(fleet).toHaveLength(2);
    const runtimes = fleet.flatMap((job) => job.observations.map((observation) => observation.runtimeS));
    expect(runtimes.sort()).toEqual([100, 150]);
  });
});
