import { defaultProjectSettings } from '@setpoint/api-contract';
import { describe, expect, it } from 'vitest';
import { probabilityMeets } from '../../../service/form-factor/form-factor-advice.js';
import type { RecommendationInput } from '../../../service/recommender/recommender.js';
import type { RecommenderRun } from '../../../service/recommender/recommender-run.js';
import { performanceModeAdvice } from './performance-mode-advice.js';
import { serverlessMonitoring } from './serverless-monitoring.js';
import { probabilityStandardMeets, standardModeSpread } from './standard-mode-spread.js';

let next = 0;
function run(target: string, runtimeMinutes: number, usd: number, status = 'SUCCESS'): RecommenderRun {
  next += 1;
  return {
    id: `r${next}`,
    externalRunId: String(next),
    status,
    startedAt: 0,
    endedAt: runtimeMinutes * 60_000,
    cluster: {} as RecommenderRun['cluster'],
    clusterConfig: { performance_target: target },
    profile: { analysis: { wallTimeMs: runtimeMinutes * 60_000 } } as RecommenderRun['profile'],
    cost: { currency: 'USD', totalUsd: usd, lowUsd: usd, highUsd: usd, components: [] },
    inputBytes: null,
    recommendationId: null,
  };
}

/** A run whose bill has not landed: its stored $0 is no cost. */
const pending = (value: RecommenderRun): RecommenderRun => ({
  ...value,
  cost: { ...value.cost, totalUsd: 0, lowUsd: 0, highUsd: 0, pending: { reason: 'no bill yet' } },
});

function input(runs: RecommenderRun[], slaMinutes: number | null): RecommendationInput {
  return {
    project: {
      id: 'p',
      name: 'job',
      phase: 'MONITORING',
      settings: { ...defaultProjectSettings(), slaMinutes },
      workspace: null,
    },
    basedOnRunId: runs.at(-1)?.id ?? '',
    runs,
    recommendations: [],
  };
}

const PO = 'PERFORMANCE_OPTIMIZED';

describe('probabilityMeets', () => {
  it('is high well inside the SLA, low past it, never certain from one alike run', () => {
    expect(probabilityMeets([20, 21, 22], 40)).toBeGreaterThan(0.99);
    expect(probabilityMeets([20, 21, 22], 18)).toBeLessThan(0.1);
    expect(probabilityMeets([20], 21)).toBeLessThan(0.9);
    expect(probabilityMeets([], 100)).toBe(0);
  });
});

describe('performanceModeAdvice', () => {
  it('gives none without an SLA', () => {
    expect(performanceModeAdvice(input([run(PO, 10, 1), run(PO, 10, 1)], null))).toBeNull();
  });

  it('tries standard mode once when two runs plus its start-up still meet the SLA, as a learning run', () => {
    const advice = performanceModeAdvice(input([run(PO, 20, 2), run(PO, 21, 2)], 60));

    expect(advice?.configuration).toEqual({ performance_target: 'STANDARD' });
    expect(advice?.phase).toBe('LEARNING');
    expect(advice?.decision).toMatchObject({ action: 'change', learning: { active: true } });
    // the prediction is the same work with 6 more minutes of start-up
    expect(advice?.prediction.runtimeMinutes.mid).toBeCloseTo(26.5, 9);
  });

  it('keeps performance-optimized mode when the added start-up would risk the SLA, or with one run', () => {
    expect(performanceModeAdvice(input([run(PO, 20, 2), run(PO, 21, 2)], 24))?.configuration).toEqual({
      performance_target: PO,
    });
    expect(performanceModeAdvice(input([run(PO, 20, 2)], 600))?.explanation).toMatch(
      /two successful runs are needed/,
    );
  });

  it('keeps standard mode on its own runs and states the saving measured in both modes', () => {
    const advice = performanceModeAdvice(
      input([run(PO, 20, 2), run(PO, 21, 2), run('STANDARD', 26, 1.4), run('STANDARD', 25, 1.4)], 60),
    );

    expect(advice?.configuration).toEqual({ performance_target: 'STANDARD' });
    expect(advice?.decision?.action).toBe('keep');
    expect(advice?.phase).toBe('MONITORING');
    expect(advice?.explanation).toMatch(/\$0\.60 saved per run in standard mode/);
  });

  it('stays in standard mode when its runs all met the SLA and P wobbles just under 0.9, not below 0.85', () => {
    const standardMinutes = [26, 27, 25, 26.5, 27.5, 25.5, 28.6];
    const standardRuns = standardMinutes.map((minutes) => run('STANDARD', minutes, 1.4));
    const sla = 28.65;
    const p = probabilityStandardMeets(
      standardMinutes,
      sla,
      standardModeSpread([20, 21], standardMinutes).logSpread,
    );
    expect(p).toBeGreaterThanOrEqual(0.85);
    expect(p).toBeLessThan(0.9);
    const stays = performanceModeAdvice(input([run(PO, 20, 2), run(PO, 21, 2), ...standardRuns], sla));
    expect(stays?.configuration).toEqual({ performance_target: 'STANDARD' });
    expect(stays?.decision?.action).toBe('keep');
    expect(stays?.explanation).toMatch(
      /all met the 28\.65-minute SLA and P = 0\.8\d is within 0\.05 of 0\.9/,
    );
    // the same runs, judged from performance-optimized mode: entering standard mode needs P >= 0.9
    const enters = performanceModeAdvice(input([...standardRuns, run(PO, 20, 2), run(PO, 21, 2)], sla));
    expect(enters?.configuration).toEqual({ performance_target: PO });
    // a standard run over the SLA ends the stay
    const missed = performanceModeAdvice(
      input([run(PO, 20, 2), run(PO, 21, 2), ...standardRuns, run('STANDARD', 29.9, 1.4)], sla),
    );
    expect(missed?.configuration).toEqual({ performance_target: PO });
  });

  describe('in standard mode with two runs 10 % under the SLA, beside a tight performance-optimized history', () => {
    // a roll-up: eight performance-optimized runs within about 2 % of each other, then two standard runs
    const optimizedRuns = () => [147, 149, 148, 150, 146, 148.5, 149.5, 147.5].map((m) => run(PO, m, 10));
    const sla = 185;
    const advise = (standardMinutes: number[]) =>
      performanceModeAdvice(
        input([...optimizedRuns(), ...standardMinutes.map((m) => run('STANDARD', m, 7))], sla),
      );

    it("stays: the other mode's runs say how much a run varies, so two standard runs carry no 10 % spread alone", () => {
      const standardMinutes = [166, 168];
      // on the standard runs alone, with the 10 % least spread, it would be moved back (P under 0.85)
      expect(probabilityMeets(standardMinutes, sla)).toBeLessThan(0.85);
      const advice = advise(standardMinutes);
      expect(advice?.configuration).toEqual({ performance_target: 'STANDARD' });
      expect(advice?.decision?.action).toBe('keep');
      const judged = advice?.decision?.sla;
      expect(judged?.kind === 'project' ? judged.probabilityMeets : 0).toBeGreaterThanOrEqual(0.9);
      expect(advice?.explanation).toMatch(/pooled over its runs in both modes \(8 degrees of freedom\)/);
    });

    it('goes back when its standard runs are noisy, however tight the other mode', () => {
      const advice = advise([140, 178]);
      expect(advice?.configuration).toEqual({ performance_target: PO });
      expect(advice?.decision?.action).toBe('change');
      expect(advice?.explanation).toMatch(/its standard runs' own/);
    });

    it('goes back when its standard runs sit near the SLA', () => {
      const advice = advise([176, 178]);
      expect(advice?.configuration).toEqual({ performance_target: PO });
      expect(advice?.explanation).toMatch(/P = 0\.\d\d only \(< 0\.9; spread/);
    });
  });

  it('moves back to performance-optimized when standard runs miss the SLA', () => {
    const advice = performanceModeAdvice(
      input([run(PO, 20, 2), run(PO, 21, 2), run('STANDARD', 31, 1.4), run('STANDARD', 33, 1.4)], 30),
    );

    expect(advice?.configuration).toEqual({ performance_target: PO });
    expect(advice?.decision).toMatchObject({ action: 'change', change: 'standard → performance optimized' });
    expect(advice?.explanation).toMatch(/only \(< 0\.9; spread \d+\.\d%/);
  });
});

describe('the predicted cost while bills are pending', () => {
  it('is not known (null, never $0) when every run the prediction reads waits for its bill', () => {
    const monitoring = serverlessMonitoring(input([pending(run(PO, 10, 1))], null));
    expect(monitoring.prediction.runtimeMinutes.mid).toBeCloseTo(10, 9);
    expect(monitoring.prediction.costUsd).toBeNull();
    const advice = performanceModeAdvice(input([pending(run(PO, 20, 2)), pending(run(PO, 21, 2))], 60));
    expect(advice?.configuration).toEqual({ performance_target: 'STANDARD' });
    expect(advice?.prediction.costUsd).toBeNull();
  });

  it('reads the billed runs alone once one bill has landed', () => {
    const monitoring = serverlessMonitoring(input([run(PO, 10, 1.5), pending(run(PO, 11, 2))], null));
    expect(monitoring.prediction.costUsd).toEqual({ low: 1.5, mid: 1.5, high: 1.5 });
  });
});
