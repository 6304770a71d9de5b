import { createRandom } from '@setpoint/foundation/random';
import type { CostPrediction } from 'setpoint/optimizer/baselines/gp-cost-model';
import { gpEiPolicy, gpInitialRuns } from 'setpoint/optimizer/baselines/gp-ei-policy';
import type { SearchPolicyFactory } from 'setpoint/optimizer/search-policy';
import { describe, expect, it } from 'vitest';
import { playEpisode, runSweepBench } from '../run-sweep-bench.js';
import { groupSweepRows, type SweepWorkload } from '../sweep-dataset.js';
import { generateSyntheticSweep } from '../synthetic-sweep.js';
import {
  type AcquisitionCandidate,
  chooseConstrained,
  constrainedExpectedImprovement,
  expectedCostImprovement,
  probabilityFeasible,
} from './constrained-acquisition.js';
import { flooredGpCei, gpCeiFeasibilityFloor, gpCeiPolicy, plainGpCei } from './gp-cei-policy.js';

/** A configuration at `ratePerSecond` whose run the GP expects to cost `cost` (its runtime: cost ÷ rate). */
function predicted(cost: number, sd: number, ratePerSecond = 1): CostPrediction {
  return { meanLogCost: Math.log(cost), sd, ratePerSecond };
}

function candidate(id: string, prediction: CostPrediction, metSlaAtCost?: number): AcquisitionCandidate {
  return {
    id,
    prediction,
    tried: metSlaAtCost !== undefined,
    ...(metSlaAtCost === undefined ? {} : { metSlaAtCost }),
  };
}

describe('constrained expected improvement', () => {
  it('is the expectation of max(0, best − cost) for a log-normal cost (checked by quadrature)', () => {
    const prediction = predicted(90, 0.4);
    let integral = 0;
    const step = 1e-3;
    for (let z = -9; z <= 9; z += step) {
      const cost = Math.exp(Math.log(90) + 0.4 * z);
      integral += Math.max(0, 100 - cost) * (Math.exp((-z * z) / 2) / Math.sqrt(2 * Math.PI)) * step;
    }
    expect(expectedCostImprovement(prediction, 100)).toBeCloseTo(integral, 4);
    expect(expectedCostImprovement(predicted(90, 0), 100)).toBeCloseTo(10, 9);
    expect(expectedCostImprovement(predicted(110, 0), 100)).toBe(0);
  });

  it('reads P(runtime ≤ SLA) from the cost prediction and the rate', () => {
    // Cost 100 at 2 $/s: runtime e^(ln 50 ± 0.5); the SLA at the median gives 1/2.
    expect(probabilityFeasible(predicted(100, 0.5, 2), 50)).toBeCloseTo(0.5, 6);
    expect(probabilityFeasible(predicted(100, 0.5, 2), 50 * Math.exp(0.5 * 1.2816))).toBeCloseTo(0.9, 3);
    expect(probabilityFeasible(predicted(100, 0, 2), 49)).toBe(0);
  });

  it('prefers a feasible configuration over a slightly better infeasible one', () => {
    // The incumbent met the SLA (100 s) at cost 100. A: cost 95 at 2 $/s → 47.5 s, surely feasible.
    // B: cost 90 at 1 $/s → 90 s, sd 0.3: P(runtime ≤ 100 s) ≈ 0.64.
    const a = predicted(95, 0.3, 2);
    const b = predicted(90, 0.3, 1);
    expect(expectedCostImprovement(b, 100)).toBeGreaterThan(expectedCostImprovement(a, 100));
    expect(probabilityFeasible(b, 100)).toBeLessThan(0.7);
    expect(constrainedExpectedImprovement(a, 100, 100)).toBeGreaterThan(
      constrainedExpectedImprovement(b, 100, 100),
    );
    const catalog = [candidate('cold', predicted(100, 0.01), 100), candidate('b', b), candidate('a', a)];
    expect(chooseConstrained(catalog, 100, 0)).toMatchObject({ id: 'a', by: 'acquisition' });
    expect(chooseConstrained(catalog, 100, gpCeiFeasibilityFloor)).toMatchObject({
      id: 'a',
      by: 'acquisition',
    });
  });

  it('never runs an untried configuration below the floor, even the most promising one', () => {
    // B would be the acquisition's pick without a floor (A is dearer than the incumbent).
    const a = predicted(105, 0.3, 2);
    const b = predicted(60, 0.5, 1);
    const catalog = [candidate('cold', predicted(100, 0.01), 100), candidate('a', a), candidate('b', b)];
    expect(probabilityFeasible(b, 100)).toBeLessThan(gpCeiFeasibilityFloor);
    expect(chooseConstrained(catalog, 100, 0).id).toBe('b');
    expect(chooseConstrained(catalog, 100, gpCeiFeasibilityFloor).id).toBe('a');
  });

  it('falls back to the cheapest configuration that met the SLA when no untried one clears the floor', () => {
    const catalog = [
      candidate('dear', predicted(140, 0.01), 140),
      candidate('cheap', predicted(100, 0.01), 100),
      candidate('risky', predicted(70, 0.5, 0.5)),
    ];
    expect(chooseConstrained(catalog, 100, gpCeiFeasibilityFloor)).toMatchObject({
      id: 'cheap',
      by: 'incumbent',
    });
  });

  it('looks for a feasible configuration first while none has met the SLA', () => {
    // Nothing met the SLA: the acquisition is P(feasible) alone, so the fastest prediction wins even if dear.
    const slow = { ...candidate('slow', predicted(50, 0.3, 0.25)), tried: true };
    const catalog = [
      slow,
      candidate('mid', predicted(60, 0.3, 0.5)),
      candidate('fast', predicted(300, 0.3, 4)),
    ];
    expect(chooseConstrained(catalog, 100, 0)).toMatchObject({ id: 'fast', by: 'acquisition' });
    // With the floor and no candidate at P ≥ 0.9, the likeliest configuration, tried or not.
    const hopeless = [slow, candidate('mid', predicted(60, 0.3, 0.5))];
    expect(chooseConstrained(hopeless, 100, gpCeiFeasibilityFloor)).toMatchObject({
      id: 'mid',
      by: 'likeliest',
    });
  });
});

const workloads = groupSweepRows(
  generateSyntheticSweep({ workloads: 3, repeats: 1, seed: 11, noise: 0.03, timeoutS: 7200 }),
);

function episodeOf(workload: SweepWorkload, start: number, factory: SearchPolicyFactory, seed: number) {
  const cold = workload.configs.filter((config) => config.meanRuntimeS !== undefined)[start]!;
  return playEpisode(
    workload,
    cold,
    1.1 * (cold.meanRuntimeS as number),
    8,
    factory,
    createRandom(seed),
    createRandom(seed + 1000),
  ).runs;
}

describe('gp-cei policies', () => {
  it("gp-cei makes gp-ei's random initial runs from the same random numbers, then claims each run", () => {
    const workload = workloads[0]!;
    const plain = episodeOf(workload, 5, gpCeiPolicy(plainGpCei), 4);
    const ei = episodeOf(workload, 5, gpEiPolicy, 4);
    expect(plain.slice(0, gpInitialRuns).map((run) => run.configId)).toEqual(
      ei.slice(0, gpInitialRuns).map((run) => run.configId),
    );
    expect(plain.slice(1, gpInitialRuns).every((run) => run.claim === undefined)).toBe(true);
    expect(plain.slice(gpInitialRuns).every((run) => run.claim !== undefined)).toBe(true);
  });

  it('gp-cei-floor runs nothing new the GP gives less than the floor, from the first recommendation on', () => {
    let moved = 0;
    for (const workload of workloads) {
      for (const start of [0, 9, 18, 27]) {
        const runs = episodeOf(workload, start, gpCeiPolicy(flooredGpCei), 5);
        const seen = new Set([runs[0]!.configId]);
        for (const run of runs.slice(1)) {
          expect(run.claim).toBeDefined();
          if (!seen.has(run.configId)) {
            moved++;
            expect(run.claim!.probabilityMeetsSla).toBeGreaterThanOrEqual(gpCeiFeasibilityFloor);
          }
          seen.add(run.configId);
        }
      }
    }
    expect(moved).toBeGreaterThan(0);
  });

  it("leaves the other optimizers' figures as they were", () => {
    const options = {
      datasetName: 'synthetic',
      slaFactors: ['1.1'],
      budget: 6,
      seeds: 2,
      maxColdStartsPerWorkload: 8,
    } as const;
    const without = runSweepBench(workloads, { ...options, optimizers: ['gp-ei', 'random', 'stay'] });
    const withCei = runSweepBench(workloads, {
      ...options,
      optimizers: ['gp-ei', 'gp-cei', 'gp-cei-floor', 'random', 'stay'],
    });
    for (const name of ['gp-ei', 'random', 'stay']) {
      expect(withCei.optimizers[name]).toEqual(without.optimizers[name]);
    }
    expect(withCei.optimizers['gp-cei-floor']?.['1.1']?.calibration.later.bins.length).toBeGreaterThan(0);
  });
});
