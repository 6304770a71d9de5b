import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultRebaseSettings, type RebaseSettings, type Segment, segmentSinceRebase } from './rebase.js';
import type { RecommenderRun } from './recommender-run.js';
import { runOf } from './recommender-run-facts.test-helpers.js';
import { inputBytesOf, runCompleted, runtimeSecondsOf } from './run-evidence.js';

/**
 * The rule as first written: every run compared with every earlier run of its segment (quadratic in the
 * window). The one-pass version must find the same segment start and reason.
 */
function segmentByRescanning(runs: RecommenderRun[], ids: string[], settings: RebaseSettings): Segment {
  const stageNames = (run: RecommenderRun) =>
    run.profile.stages
      .map((stage) => stage.name)
      .sort()
      .join('\u0000');
  const perByte = (run: RecommenderRun) => runtimeSecondsOf(run.profile) / Math.max(1, inputBytesOf(run));
  let start = 0;
  let reason = '';
  for (let i = 1; i < runs.length; i++) {
    const run = runs[i] as RecommenderRun;
    const completed = runs.slice(start, i).filter(runCompleted);
    const same = runs.slice(start, i).filter((entry, k) => runCompleted(entry) && ids[start + k] === ids[i]);
    let change: string | null = null;
    if (runCompleted(run) && completed.length > 0) {
      const reference = completed.at(-1) as RecommenderRun;
      const inputs = completed.map(inputBytesOf).filter((bytes) => bytes > 0);
      const input = inputBytesOf(run);
      const tasks = completed.map((entry) => entry.profile.totals.tasks);
      const expected = same.reduce((sum, entry) => sum + perByte(entry), 0) / same.length;
      if (stageNames(run) !== stageNames(reference)) change = 'stages';
      else if (
        inputs.length > 0 &&
        input > 0 &&
        (input < Math.min(...inputs) / settings.inputGrowthFactor ||
          input > Math.max(...inputs) * settings.inputGrowthFactor)
      )
        change = 'input';
      else if (
        run.profile.totals.tasks < Math.min(...tasks) / settings.taskCountFactor ||
        run.profile.totals.tasks > Math.max(...tasks) * settings.taskCountFactor
      )
        change = 'tasks';
      else if (same.length > 0 && Math.abs(perByte(run) / expected - 1) > settings.runtimeAnomaly)
        change = 'runtime';
    }
    if (change) {
      start = i;
      reason = change;
    }
  }
  return { start, reason };
}

const kindOf = (reason: string) =>
  reason === ''
    ? ''
    : /stage structure/.test(reason)
      ? 'stages'
      : /the input moved/.test(reason)
        ? 'input'
        : /task count/.test(reason)
          ? 'tasks'
          : /unchanged configuration/.test(reason)
            ? 'runtime'
            : `unknown: ${reason}`;

const runFacts = fc.record({
  stages: fc.constantFrom(['scan', 'aggregate'], ['aggregate', 'scan'], ['scan', 'join', 'aggregate']),
  inputBytes: fc.oneof(
    fc.constant(0),
    fc.integer({ min: 50, max: 200 }).map((gib) => gib * 2 ** 30),
  ),
  tasks: fc.integer({ min: 300, max: 700 }),
  runtimeS: fc.integer({ min: 400, max: 900 }),
  failed: fc.boolean(),
  configuration: fc.constantFrom('8xm5.xlarge', '4xr5.xlarge', '6xc5.2xlarge'),
});

describe('segmentSinceRebase', () => {
  it('finds the segment the rescanning rule finds, in one pass, for any history', () => {
    fc.assert(
      fc.property(fc.array(runFacts, { minLength: 0, maxLength: 40 }), (history) => {
        const runs = history.map(runOf);
        const ids = history.map((facts) => facts.configuration);
        const expected = segmentByRescanning(runs, ids, defaultRebaseSettings);
        const actual = segmentSinceRebase(runs, ids, defaultRebaseSettings);
        expect(actual.start).toBe(expected.start);
        expect(kindOf(actual.reason)).toBe(expected.reason);
      }),
      { numRuns: 400 },
    );
  });

  it('restarts its ranges at a rebase: after a jump, the new input is the range', () => {
    const base = { stages: ['scan'], tasks: 500, runtimeS: 600, failed: false, configuration: 'a' };
    const gib = 2 ** 30;
    const runs = [100, 400, 420, 100].map((size, i) => runOf({ ...base, inputBytes: size * gib }, i));
    const segment = segmentSinceRebase(runs, ['a', 'a', 'a', 'a'], defaultRebaseSettings);
    expect(segment.start).toBe(3);
    expect(segment.reason).toBe('the input moved to 100.0 GiB, outside the 400.0–420.0 GiB seen');
  });

  it('names the stage that changed when the job has as many stages as before', () => {
    const base = { inputBytes: 0, tasks: 500, runtimeS: 600, failed: false, configuration: 'a' };
    const runs = [
      runOf({ ...base, stages: ['scan', 'aggregate'] }, 0),
      runOf({ ...base, stages: ['scan', 'join'] }, 1),
    ];
    expect(segmentSinceRebase(runs, ['a', 'a'], defaultRebaseSettings).reason).toBe(
      'the stage structure changed (2 stages, but "aggregate" became "join")',
    );
    const grown = [runs[0] as RecommenderRun, runOf({ ...base, stages: ['scan', 'join', 'aggregate'] }, 1)];
    expect(segmentSinceRebase(grown, ['a', 'a'], defaultRebaseSettings).reason).toBe(
      'the stage structure changed (2 → 3 stages)',
    );
  });
});
