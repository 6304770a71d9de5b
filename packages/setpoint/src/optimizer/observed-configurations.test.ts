import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ObservedConfiguration, observedConfigurations } from './observed-configurations.js';
import type { Observation } from './types.js';

const ids = ['a', 'b', 'c'];
const indexOf = (id: string) => {
  const index = ids.indexOf(id);
  return index < 0 ? undefined : index;
};

const observation = fc.record({
  candidateId: fc.constantFrom(...ids, 'unknown'),
  runtimeS: fc.oneof(fc.constant(0), fc.double({ min: 30, max: 20_000, noNaN: true })),
  completed: fc.boolean(),
});

const asObservation = (entry: {
  candidateId: string;
  runtimeS: number;
  completed: boolean;
}): Observation => ({
  ...entry,
  costUsd: 1,
  profile: {},
});

/** What a summary of `observations` holds per configuration: the count, sum and sum of squares of ln(runtime). */
function totalsOf(observations: readonly Observation[]) {
  const totals = new Map<
    string,
    { candidateId: string; runs: number; sumLog: number; sumSquaresLog: number }
  >();
  for (const entry of observations) {
    if (!entry.completed || !(entry.runtimeS > 0)) continue;
    const log = Math.log(entry.runtimeS);
    const known = totals.get(entry.candidateId) ?? {
      candidateId: entry.candidateId,
      runs: 0,
      sumLog: 0,
      sumSquaresLog: 0,
    };
    totals.set(entry.candidateId, {
      ...known,
      runs: known.runs + 1,
      sumLog: known.sumLog + log,
      sumSquaresLog: known.sumSquaresLog + log * log,
    });
  }
  return [...totals.values()];
}

const byIndex = (configurations: ObservedConfiguration[]) =>
  [...configurations].sort((x, y) => x.index - y.index);

describe('observedConfigurations with earlier totals', () => {
  it('equals the statistics over every run, however the runs are split into totals and observations', () => {
    fc.assert(
      fc.property(fc.array(observation, { maxLength: 60 }), fc.nat(), (history, cut) => {
        const all = history.map(asObservation);
        const split = all.length === 0 ? 0 : cut % (all.length + 1);
        const expected = byIndex(observedConfigurations(all, indexOf));
        const actual = byIndex(
          observedConfigurations(all.slice(split), indexOf, totalsOf(all.slice(0, split))),
        );
        expect(actual.map((entry) => [entry.index, entry.runs])).toEqual(
          expected.map((entry) => [entry.index, entry.runs]),
        );
        for (const [i, entry] of actual.entries()) {
          const wanted = expected[i] as ObservedConfiguration;
          expect(entry.meanLog).toBeCloseTo(wanted.meanLog, 9);
          expect(entry.scatter).toBeCloseTo(wanted.scatter, 6);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('leaves out totals of configurations the model does not know', () => {
    const observed = observedConfigurations([], indexOf, [
      { candidateId: 'unknown', runs: 3, sumLog: 18, sumSquaresLog: 108 },
      { candidateId: 'b', runs: 2, sumLog: 12, sumSquaresLog: 72.5 },
    ]);
    expect(observed).toEqual([{ index: 1, meanLog: 6, runs: 2, scatter: 0.5 }]);
  });
});
