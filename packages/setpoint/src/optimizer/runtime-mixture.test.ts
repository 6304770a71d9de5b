import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RuntimeMixture } from './runtime-mixture.js';

/** The plain bisection `quantiles` must agree with to the last bit: every step evaluates `cdfAtLog`. */
function bisected(
  mixture: RuntimeMixture,
  candidate: number,
  ps: readonly number[],
  bounds: [number, number],
) {
  const order = ps.map((_, i) => i).sort((a, b) => (ps[a] as number) - (ps[b] as number));
  const out = new Array<number>(ps.length);
  let floor = bounds[0];
  for (const i of order) {
    let low = floor;
    let high = bounds[1];
    while (high - low > 1e-8) {
      const middle = (low + high) / 2;
      if (mixture.cdfAtLog(candidate, middle) < (ps[i] as number)) low = middle;
      else high = middle;
    }
    floor = low;
    out[i] = Math.exp((low + high) / 2);
  }
  return out;
}

const component = fc.record({
  weight: fc.double({ min: 1e-6, max: 1, noNaN: true }),
  mu: fc.double({ min: 2, max: 10, noNaN: true }),
  sigma: fc.double({ min: 0.01, max: 1.5, noNaN: true }),
});

describe('RuntimeMixture.quantiles', () => {
  it('answers exactly what bisection on cdfAtLog answers', () => {
    fc.assert(
      fc.property(
        fc.array(component, { minLength: 1, maxLength: 40 }),
        fc.array(fc.double({ min: 0.001, max: 0.999, noNaN: true }), { minLength: 1, maxLength: 20 }),
        (components, ps) => {
          const total = components.reduce((sum, entry) => sum + entry.weight, 0);
          const weights = components.map((entry) => entry.weight / total);
          // candidate 1 of 2, so the per-candidate arrays are read at an index other than 0
          const mus = components.map((entry) => Float64Array.from([0, entry.mu]));
          const sigmas = components.map((entry) => Float64Array.from([1, entry.sigma]));
          const mixture = new RuntimeMixture(weights, mus, sigmas, []);
          const lowest = Math.min(...components.map((entry) => entry.mu - 6 * entry.sigma));
          const highest = Math.max(...components.map((entry) => entry.mu + 6 * entry.sigma));
          expect(mixture.quantiles(1, ps)).toEqual(bisected(mixture, 1, ps, [lowest, highest]));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('searches twins once: candidates with the same distribution get the same answers, others their own', () => {
    // candidates 0 and 2 are twins (a market or price apart), 1 differs in one component's spread
    const mus = [Float64Array.from([4, 4, 4]), Float64Array.from([5, 5, 5])];
    const sigmas = [Float64Array.from([0.3, 0.3, 0.3]), Float64Array.from([0.2, 0.25, 0.2])];
    const mixture = new RuntimeMixture([0.6, 0.4], mus, sigmas, []);
    const ps = [0.1, 0.5, 0.9];
    const alone = (candidate: number, at: readonly number[] = ps) =>
      new RuntimeMixture(
        [0.6, 0.4],
        mus.map((column) => Float64Array.of(column[candidate] as number)),
        sigmas.map((column) => Float64Array.of(column[candidate] as number)),
        [],
      ).quantiles(0, at);
    expect(mixture.quantiles(0, ps)).toEqual(alone(0));
    expect(mixture.quantiles(2, ps)).toEqual(alone(2));
    expect(mixture.quantiles(1, ps)).toEqual(alone(1));
    expect(mixture.quantiles(1, ps)).not.toEqual(mixture.quantiles(0, ps));
    expect(mixture.representativeOf(2)).toBe(0);
    expect(mixture.representativeOf(1)).toBe(1);
    // an answer handed out is the caller's: changing it changes no later answer
    const first = mixture.quantiles(0, ps);
    first[0] = 0;
    expect(mixture.quantiles(2, ps)).toEqual(alone(0));
    // a mixture posted from a worker thread (a structured clone, revived) answers the same
    const revived = RuntimeMixture.revive(structuredClone(mixture));
    expect(revived.quantiles(2, ps)).toEqual(alone(2));
    expect(revived.quantile(1, 0.5)).toBe(alone(1, [0.5])[0]);
  });

  it('gives cdfAtLog at every spread multiplier at once, equal to it to the last bit', () => {
    fc.assert(
      fc.property(
        fc.array(component, { minLength: 1, maxLength: 40 }),
        fc.double({ min: 0, max: 12, noNaN: true }),
        fc.array(fc.double({ min: 0.05, max: 4, noNaN: true }), { minLength: 1, maxLength: 20 }),
        (components, logValue, scales) => {
          const total = components.reduce((sum, entry) => sum + entry.weight, 0);
          const weights = components.map((entry) => entry.weight / total);
          const mus = components.map((entry) => Float64Array.from([0, entry.mu]));
          const sigmas = components.map((entry) => Float64Array.from([1, entry.sigma]));
          const mixture = new RuntimeMixture(weights, mus, sigmas, []);
          expect(mixture.cdfAtLogScales(1, logValue, scales)).toEqual(
            scales.map((scale) => mixture.cdfAtLog(1, logValue, scale)),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('finds the median of a lone Gaussian at its mean', () => {
    const mixture = new RuntimeMixture(
      [1],
      [Float64Array.from([Math.log(600)])],
      [Float64Array.from([0.2])],
      [],
    );
    expect(mixture.quantile(0, 0.5)).toBeCloseTo(600, 3);
  });

  it('names its heaviest components, two fleet jobs of one name apart, each with its id', () => {
    const one = () => Float64Array.from([0]);
    const mixture = new RuntimeMixture(
      [0.3, 0.25, 0.2, 0.15, 0.1],
      [one(), one(), one(), one(), one()],
      [one(), one(), one(), one(), one()],
      [],
      ['“Nightly ETL”', '“Nightly ETL”', 'the fleet model', '“Nightly ETL”', 'the fleet model'],
      ['project:prj_a', 'project:prj_b', null, 'project:prj_a', null],
    );
    const leading = mixture.leadingComponents(3);
    expect(leading.map(({ label, source }) => [label, source])).toEqual([
      ['“Nightly ETL”', 'project:prj_a'],
      ['the fleet model', undefined],
      ['“Nightly ETL”', 'project:prj_b'],
    ]);
    expect(leading.map((entry) => entry.weight)).toEqual([
      expect.closeTo(0.45, 9),
      expect.closeTo(0.3, 9),
      expect.closeTo(0.25, 9),
    ]);
  });
});
