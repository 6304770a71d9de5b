import { createRandom } from '@setpoint/foundation/random';
import { describe, expect, it } from 'vitest';
import {
  dbusAtLaunchDelay,
  defaultLaunchDelayPolicy,
  learnLaunchDelay,
  type PricedLaunchWindow,
  type ReconciledLaunch,
} from './launch-delay.js';

const second = 1_000;
const minute = 60 * second;
const hour = 60 * minute;

interface SyntheticRun {
  /** How far into its minute the cluster was requested. */
  requestSecond: number;
  nodes: number;
  /** Billed life of each node after it launched. */
  lifeMs: number;
  dbusPerHour: number;
}

/**
 * A run as its node timeline and its bill would show it, for a workspace whose nodes start
 * `trueDelayMs` after the cluster request: the node timeline keeps only the minute each node started in,
 * the bill the exact span. The stored estimate is the middle-of-the-minute one (no delay learned yet).
 */
function reconciledRun(run: SyntheticRun, trueDelayMs: number): ReconciledLaunch {
  const requestedMs = 1_000 * minute + run.requestSecond * second;
  const startMs = requestedMs + trueDelayMs;
  const firstRowMs = Math.floor(startMs / minute) * minute;
  const window: PricedLaunchWindow = {
    lowMs: Math.max(firstRowMs, requestedMs) - requestedMs,
    highMs: firstRowMs + minute - requestedMs,
    dbusPerHour: run.dbusPerHour,
  };
  const windows = Array.from({ length: run.nodes }, () => ({ ...window }));
  const endMs = startMs + run.lifeMs;
  const estimatedStartMs = requestedMs + (window.lowMs + window.highMs) / 2;
  return {
    windows,
    launchDelayMs: null,
    estimatedDbus: (run.nodes * run.dbusPerHour * (endMs - estimatedStartMs)) / hour,
    billedDbus: (run.nodes * run.dbusPerHour * (endMs - startMs)) / hour,
  };
}

function syntheticRuns(count: number, trueDelayMs: number, seed = 7): ReconciledLaunch[] {
  const random = createRandom(seed);
  return Array.from({ length: count }, () =>
    reconciledRun(
      {
        requestSecond: Math.floor(random.next() * 60),
        nodes: 2 + Math.floor(random.next() * 8),
        lifeMs: (8 + random.next() * 30) * minute,
        dbusPerHour: 0.5 + random.next() * 2,
      },
      trueDelayMs,
    ),
  );
}

const medianError = (runs: ReconciledLaunch[], delayMs: number | null) => {
  const errors = runs
    .map((run) => Math.abs(dbusAtLaunchDelay(run, delayMs) - run.billedDbus) / run.billedDbus)
    .sort((a, b) => a - b);
  return errors[Math.floor(errors.length / 2)]!;
};

describe('learning a workspace launch delay from reconciled bills', () => {
  it.each([[30 * second], [47 * second], [2 * minute + 13 * second]])(
    'finds a %d ms delay from the bills and makes the estimates match them',
    (trueDelayMs) => {
      const runs = syntheticRuns(20, trueDelayMs);
      const fit = learnLaunchDelay(runs);

      expect(fit.launchDelayMs).toBe(trueDelayMs);
      // a run the middle of the minute misses far more than the others may be set aside as an outlier
      expect(fit.runs).toBeGreaterThanOrEqual(18);
      expect(fit.learnedError).toBeCloseTo(0, 9);
      expect(fit.defaultError).toBeGreaterThan(0);
      expect(medianError(runs, fit.launchDelayMs)).toBeLessThan(medianError(runs, null));
    },
  );

  it('re-evaluates runs already estimated with an earlier delay from that delay, not from the middle', () => {
    const [run] = syntheticRuns(1, 30 * second);
    const fromMiddle = run!;
    const withDelay = {
      ...fromMiddle,
      launchDelayMs: 40 * second,
      estimatedDbus: dbusAtLaunchDelay(fromMiddle, 40 * second),
    };

    for (const delay of [null, 0, 30 * second, 55 * second])
      expect(dbusAtLaunchDelay(withDelay, delay)).toBeCloseTo(dbusAtLaunchDelay(fromMiddle, delay), 12);
  });

  it('ignores bills first published too high and not yet restated, and uses restated ones', () => {
    const random = createRandom(3);
    const runs = syntheticRuns(30, 30 * second).map((run, index) =>
      // every fifth run's bill is still the wrong original (5–25 % high, as Databricks later restates)
      index % 5 === 0 ? { ...run, billedDbus: run.billedDbus * (1.05 + random.next() * 0.2) } : run,
    );
    const fit = learnLaunchDelay(runs);

    expect(fit.launchDelayMs).toBe(30 * second);
    // once restated, the same runs carry the corrected bill and agree with the others
    const restated = syntheticRuns(30, 30 * second);
    expect(learnLaunchDelay(restated).launchDelayMs).toBe(30 * second);
    expect(learnLaunchDelay(restated).learnedError).toBeLessThan(fit.learnedError!);
  });

  it('leaves out runs it cannot learn from: no node timeline, no bill', () => {
    const runs = syntheticRuns(defaultLaunchDelayPolicy.minimumRuns - 1, 30 * second);
    const useless: ReconciledLaunch[] = [
      { windows: [], launchDelayMs: null, estimatedDbus: 3, billedDbus: 3 },
      { ...runs[0]!, billedDbus: 0 },
      { ...runs[0]!, estimatedDbus: Number.NaN },
    ];
    const fit = learnLaunchDelay([...runs, ...useless]);

    expect(fit.runs).toBe(defaultLaunchDelayPolicy.minimumRuns - 1);
    expect(fit.launchDelayMs).toBeNull();
  });

  it('keeps the middle of the minute below the minimum number of reconciled runs', () => {
    const few = syntheticRuns(defaultLaunchDelayPolicy.minimumRuns - 1, 30 * second);
    const fit = learnLaunchDelay(few);

    expect(fit.launchDelayMs).toBeNull();
    expect(fit.reason).toMatch(/needed/);
    expect(
      learnLaunchDelay(syntheticRuns(defaultLaunchDelayPolicy.minimumRuns, 30 * second)).launchDelayMs,
    ).toBe(30 * second);
  });

  it('keeps the middle of the minute for a workspace whose launch delay varies widely', () => {
    const random = createRandom(11);
    const runs = Array.from({ length: 40 }, (_, index) =>
      reconciledRun(
        { requestSecond: index % 60, nodes: 4, lifeMs: 20 * minute, dbusPerHour: 1 },
        Math.floor(random.next() * 5 * minute),
      ),
    );
    const fit = learnLaunchDelay(runs);

    expect(fit.launchDelayMs).toBeNull();
    expect(fit.reason).toMatch(/no launch delay beats/);
  });

  it('follows a workspace whose launch delay changed, from its latest runs', () => {
    const before = syntheticRuns(8, 30 * second, 1);
    const after = syntheticRuns(24, 50 * second, 2);

    expect(learnLaunchDelay(before).launchDelayMs).toBe(30 * second);
    expect(learnLaunchDelay([...after, ...before]).launchDelayMs).toBe(50 * second);
  });
});
