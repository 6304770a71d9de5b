import { createRandom, deriveSeed } from '@setpoint/foundation/random';
import { describe, expect, it } from 'vitest';
import { instanceFamily } from './config-features.js';
import { fitGaussianProcess, fitGaussianProcessByEvidence } from './gaussian-process.js';
import { constrainedExpectedImprovement, normalCdf, normalQuantile } from './normal-distribution.js';

describe('normal distribution helpers', () => {
  it('has a CDF and quantile that invert each other', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    for (const p of [0.01, 0.1, 0.5, 0.9, 0.999]) expect(normalCdf(normalQuantile(p))).toBeCloseTo(p, 6);
  });

  it('constrained expected improvement is zero when the runtime limit makes improvement impossible', () => {
    // Runtime is ~100 s for sure, the limit is 50 s.
    expect(constrainedExpectedImprovement(Math.log(100), 1e-6, 1, 1000, 50)).toBe(0);
    // Without the binding limit, the improvement is best − rate·t = 1000 − 100.
    expect(constrainedExpectedImprovement(Math.log(100), 1e-12, 1, 1000, 1e9)).toBeCloseTo(900, 6);
  });

  it('constrained expected improvement matches a Monte Carlo estimate', () => {
    const random = createRandom(3);
    const [mu, sigma, rate, best, limit] = [Math.log(100), 0.4, 2, 220, 130];
    let sum = 0;
    const draws = 200_000;
    for (let i = 0; i < draws; i++) {
      const t = Math.exp(mu + sigma * random.normal());
      if (t <= limit && rate * t < best) sum += best - rate * t;
    }
    expect(constrainedExpectedImprovement(mu, sigma, rate, best, limit)).toBeCloseTo(sum / draws, 0);
  });
});

describe('Gaussian process', () => {
  const points = [[0], [0.25], [0.5], [1]];
  const targets = [1, 2, 1.5, 0];

  it('interpolates its training points when noise is small and is uncertain far from them', () => {
    const gp = fitGaussianProcess(points, targets, 0.3, 1e-6);
    for (const [i, point] of points.entries()) expect(gp.predict(point).mean).toBeCloseTo(targets[i]!, 3);
    expect(gp.predict([3]).sd).toBeGreaterThan(gp.predict([0.3]).sd * 5);
  });

  it('picks hyperparameters by marginal likelihood', () => {
    const best = fitGaussianProcessByEvidence(points, targets, [0.05, 0.3, 5], [1e-4, 1e-2]);
    const candidates = [0.05, 0.3, 5].flatMap((l) =>
      [1e-4, 1e-2].map((n) => fitGaussianProcess(points, targets, l, n)),
    );
    expect(best.logMarginalLikelihood).toBe(Math.max(...candidates.map((fit) => fit.logMarginalLikelihood)));
  });
});

describe('seeded random and instance families', () => {
  it('repeats a sequence for a seed and differs across seeds', () => {
    const a = createRandom(deriveSeed('job', 1));
    const b = createRandom(deriveSeed('job', 1));
    const c = createRandom(deriveSeed('job', 2));
    const first = [a.next(), a.next(), a.next()];
    expect([b.next(), b.next(), b.next()]).toEqual(first);
    expect(c.next()).not.toBe(first[0]);
  });

  it('names instance families across clouds', () => {
    expect(instanceFamily({ instanceType: 'r5d.2xlarge', engine: 'standard', storage: null })).toBe('r5d');
    expect(instanceFamily({ instanceType: 'c4.large', engine: 'standard', storage: null })).toBe('c4');
    expect(instanceFamily({ instanceType: 'Standard_E8ds_v4', engine: 'standard', storage: null })).toBe(
      'Standard_Eds_v4',
    );
  });
});
