import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ObservedConfiguration,
  observedConfigurations,
} from '../../optimizer/observed-configurations.js';
import { emptyFoldedStatistics, foldRuns, summarizedConfigurations } from './learning-summary.js';
import { defaultRebaseSettings, segmentSinceRebase } from './rebase.js';
import type { RecommenderRun } from './recommender-run.js';
import { runOf } from './recommender-run-facts.test-helpers.js';
import { inputBytesOf, observationOf } from './run-evidence.js';

const gib = 2 ** 30;
const runFacts = fc.record({
  stages: fc.constantFrom(['scan', 'aggregate'], ['scan', 'aggregate'], ['scan', 'join', 'aggregate']),
  inputBytes: fc.oneof(
    fc.constant(0),
    fc.integer({ min: 50, max: 200 }).map((size) => size * gib),
  ),
  tasks: fc.integer({ min: 300, max: 700 }),
  runtimeS: fc.integer({ min: 400, max: 900 }),
  failed: fc.boolean(),
  configuration: fc.constantFrom('8xm5.xlarge', '4xr5.xlarge', '6xc5.2xlarge'),
});

const configurations = ['8xm5.xlarge', '4xr5.xlarge', '6xc5.2xlarge'];
const indexOf = (id: string) => {
  const index = configurations.indexOf(id);
  return index < 0 ? undefined : index;
};
const byIndex = (observed: ObservedConfiguration[]) => [...observed].sort((a, b) => a.index - b.index);

function expectSameStatistics(actual: ObservedConfiguration[], expected: ObservedConfiguration[]) {
  expect(byIndex(actual).map((entry) => [entry.index, entry.runs])).toEqual(
    byIndex(expected).map((entry) => [entry.index, entry.runs]),
  );
  for (const [i, entry] of byIndex(actual).entries()) {
    const wanted = byIndex(expected)[i] as ObservedConfiguration;
    expect(entry.meanLog).toBeCloseTo(wanted.meanLog, 9);
    expect(entry.scatter).toBeCloseTo(wanted.scatter, 6);
  }
}

describe('learning summary folding', () => {
  it('gives the model the statistics of the whole history when the oldest runs are only folded', () => {
    fc.assert(
      fc.property(fc.array(runFacts, { minLength: 1, maxLength: 40 }), fc.nat(), (history, cut) => {
        const runs = history.map(runOf);
        const ids = history.map((facts) => facts.configuration);
        const split = cut % runs.length;
        const window = runs.slice(split);
        const windowIds = ids.slice(split);
        const latest = inputBytesOf(runs.at(-1) as RecommenderRun);
        // the whole history, as a window that holds every run would see it
        const whole = segmentSinceRebase(runs, ids, defaultRebaseSettings);
        const expected = observedConfigurations(
          runs.slice(whole.start).map((run, i) => observationOf(run, ids[whole.start + i] as string, latest)),
          indexOf,
        );
        // the oldest runs folded, the rest read as the window
        const folded = foldRuns(emptyFoldedStatistics(), runs.slice(0, split), ids, defaultRebaseSettings);
        const segment = segmentSinceRebase(window, windowIds, defaultRebaseSettings, folded.segment);
        expect(segment.start).toBe(Math.max(0, whole.start - split));
        expect(segment.reason).toBe(whole.start >= split ? whole.reason : '');
        const observations = window
          .slice(segment.start)
          .map((run, i) => observationOf(run, windowIds[segment.start + i] as string, latest));
        const earlier = segment.reason === '' ? summarizedConfigurations(folded.configurations, latest) : [];
        // a based-on run without an input size cannot shift the sized totals: it is left out of this check
        if (latest > 0 || history.slice(0, split).every((facts) => facts.inputBytes === 0))
          expectSameStatistics(observedConfigurations(observations, indexOf, earlier), expected);
      }),
      { numRuns: 400 },
    );
  });

  it('folds page by page to the same statistics as in one go', () => {
    fc.assert(
      fc.property(fc.array(runFacts, { maxLength: 40 }), fc.integer({ min: 1, max: 7 }), (history, page) => {
        const runs = history.map(runOf);
        const ids = history.map((facts) => facts.configuration);
        let paged = emptyFoldedStatistics();
        for (let start = 0; start < runs.length; start += page)
          paged = foldRuns(
            JSON.parse(JSON.stringify(paged)),
            runs.slice(start, start + page),
            ids.slice(start, start + page),
            defaultRebaseSettings,
          );
        const once = foldRuns(emptyFoldedStatistics(), runs, ids, defaultRebaseSettings);
        expect(paged.segment).toEqual(once.segment);
        expect(Object.keys(paged.configurations).sort()).toEqual(Object.keys(once.configurations).sort());
        for (const [id, totals] of Object.entries(once.configurations)) {
          expect(paged.configurations[id]?.sized.runs).toBe(totals.sized.runs);
          expect(paged.configurations[id]?.unsized.runs).toBe(totals.unsized.runs);
          expect(paged.configurations[id]?.sized.sum).toBeCloseTo(totals.sized.sum, 9);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('shifts ln(runtime) − ln(input) by ln(latest input) exactly, and keeps runs without an input unscaled', () => {
    const base = { stages: ['scan'], tasks: 500, failed: false };
    const runs = [
      runOf({ ...base, inputBytes: 100 * gib, runtimeS: 600, configuration: 'a' }, 0),
      runOf({ ...base, inputBytes: 120 * gib, runtimeS: 660, configuration: 'a' }, 1),
      runOf({ ...base, inputBytes: 0, runtimeS: 500, configuration: 'b' }, 2),
    ];
    const folded = foldRuns(emptyFoldedStatistics(), runs, ['a', 'a', 'b'], defaultRebaseSettings);
    const latest = 110 * gib;
    const summary = summarizedConfigurations(folded.configurations, latest);
    const logs = [Math.log((600 * latest) / (100 * gib)), Math.log((660 * latest) / (120 * gib))];
    expect(summary.map((entry) => [entry.candidateId, entry.runs])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
    expect(summary[0]?.sumLog).toBeCloseTo(
      logs.reduce((sum, value) => sum + value, 0),
      12,
    );
    expect(summary[0]?.sumSquaresLog).toBeCloseTo(
      logs.reduce((sum, value) => sum + value * value, 0),
      10,
    );
    expect(summary[1]?.sumLog).toBe(Math.log(500));
    // without the based-on run's input size, sized totals cannot be unscaled: only the unsized run counts
    expect(summarizedConfigurations(folded.configurations, 0)).toEqual([
      { candidateId: 'b', runs: 1, sumLog: Math.log(500), sumSquaresLog: Math.log(500) ** 2 },
    ]);
  });

  it('drops the totals before a rebase among the folded runs, and carries the rebase state on', () => {
    const base = { stages: ['scan'], tasks: 500, runtimeS: 600, failed: false };
    const runs = [
      runOf({ ...base, inputBytes: 100 * gib, configuration: 'a' }, 0),
      runOf({ ...base, inputBytes: 100 * gib, configuration: 'b' }, 1),
      // the input grows fourfold: the job changed, what came before no longer describes it
      runOf({ ...base, inputBytes: 400 * gib, configuration: 'a' }, 2),
      runOf({ ...base, inputBytes: 410 * gib, configuration: 'a' }, 3),
    ];
    const folded = foldRuns(emptyFoldedStatistics(), runs, ['a', 'b', 'a', 'a'], defaultRebaseSettings);
    expect(Object.keys(folded.configurations)).toEqual(['a']);
    expect(folded.configurations.a?.sized.runs).toBe(2);
    expect(folded.segment.inputs).toEqual({ min: 400 * gib, max: 410 * gib });
    // a window whose first run went back to the old input rebases at that run: the totals are not read
    const next = [runOf({ ...base, inputBytes: 100 * gib, configuration: 'a' }, 4)];
    const segment = segmentSinceRebase(next, ['a'], defaultRebaseSettings, folded.segment);
    expect(segment).toEqual({
      start: 0,
      reason: 'the input moved to 100.0 GiB, outside the 400.0–410.0 GiB seen',
    });
  });
});
