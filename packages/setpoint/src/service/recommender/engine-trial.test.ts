import { describe, expect, it } from 'vitest';
import type { Assessment, CandidateAssessment } from '../../optimizer/recommend.js';
import type { Candidate } from '../../optimizer/types.js';
import type { EngineTrials, SpeedupPrior } from './cluster-model.js';
import {
  chooseEngineTrial,
  trialBaselineQuantiles,
  trialGridProbabilities,
  trialRuntimes,
} from './engine-trial.js';

const prior: SpeedupPrior = { low: 1, mid: 1.5, high: 2.5, source: 'a test prior', ofJob: false };

function candidate(id: string, usdPerNodeHour: number): Candidate {
  return {
    id,
    instanceType: 'm5.xlarge',
    engine: 'standard' as const,
    storage: null,
    nodes: 4,
    vcpusPerNode: 4,
    memoryGibPerNode: 16,
    priceUsdPerNodeHour: usdPerNodeHour,
  };
}

/**
 * An assessment whose runtime quantiles are a fixed runtime per candidate ± 10% (uniform in p), each
 * candidate 4 nodes at $1 a node-hour.
 */
function assessmentOf(runtimes: Record<string, number>): Assessment {
  const ids = Object.keys(runtimes);
  const assessments = ids.map(
    (id, index): CandidateAssessment => ({
      candidate: candidate(id, 1),
      index,
      expectedCostUsd: ((runtimes[id] as number) * 4) / 3600,
      expectedRuntimeS: runtimes[id] as number,
      probabilityMeetsSla: 0,
      probabilityFails: 0,
      expectedImprovementUsd: 0,
      tried: false,
    }),
  );
  return {
    assessments,
    mixture: {
      quantiles: (index: number, ps: readonly number[]) =>
        ps.map((p) => (runtimes[ids[index] as string] as number) * (0.9 + 0.2 * p)),
    },
  } as unknown as Assessment;
}

function trialsOf(
  entries: Array<{ id: string; baselineId: string; usdPerNodeHour: number }>,
): EngineTrials<string> {
  return {
    engine: 'Photon',
    speedup: prior,
    entries: entries.map(({ id, baselineId, usdPerNodeHour }) => ({
      entry: { candidate: candidate(id, usdPerNodeHour), shape: id, allowed: true },
      baselineId,
    })),
  };
}

describe('engine trials', () => {
  it("speeds up only the executors' share of the run, by the prior's spread", () => {
    const runtimes = trialRuntimes(
      trialGridProbabilities.map(() => 100),
      prior,
      40,
    );
    // 40 s of driver time + 60 s of task time divided by speed-ups between about 0.8× and 3×
    expect(Math.min(...runtimes)).toBeGreaterThan(40);
    const median = runtimes[Math.floor(runtimes.length / 2)] as number;
    expect(median).toBeGreaterThan(40 + 60 / 1.6);
    expect(median).toBeLessThan(40 + 60 / 1.4);
    // the 10th percentile of the speed-up (1.0×) leaves a tenth or so of the grid (20 points) no faster
    const noFaster = runtimes.filter((t) => t >= 100).length / runtimes.length;
    expect(noFaster).toBeGreaterThan(0.05);
    expect(noFaster).toBeLessThanOrEqual(0.15);
    // all driver: nothing to speed up
    expect(
      new Set(
        trialRuntimes(
          trialGridProbabilities.map(() => 100),
          prior,
          150,
        ),
      ),
    ).toEqual(new Set([100]));
  });

  it('tries where the SLA is likeliest met, the cheapest among near ties, within the budget', () => {
    const assessment = assessmentOf({ small: 200, large: 100, large2: 101 });
    const trials = trialsOf([
      { id: 'photon-small', baselineId: 'small', usdPerNodeHour: 1 },
      { id: 'photon-large', baselineId: 'large', usdPerNodeHour: 3 },
      { id: 'photon-large2', baselineId: 'large2', usdPerNodeHour: 2 },
      { id: 'photon-unassessed', baselineId: 'missing', usdPerNodeHour: 0.1 },
    ]);
    const chosen = chooseEngineTrial({
      trials,
      assessment,
      slaS: 80,
      fixedS: 10,
      budgetUsd: 10,
      minProbability: 0.5,
    });
    expect(chosen?.entry.shape).toBe('photon-large2');
    expect(chosen?.assessment.probabilityMeetsSla).toBeGreaterThanOrEqual(0.5);
    expect(chosen?.costUsd.mid).toBeCloseTo(((4 * 2) / 3600) * (chosen?.runtimeS.mid ?? 0), 9);

    // over budget: no trial
    expect(
      chooseEngineTrial({ trials, assessment, slaS: 80, fixedS: 10, budgetUsd: 0.1, minProbability: 0.5 }),
    ).toBeNull();
    // an SLA the prior gives no even chance: no trial
    expect(
      chooseEngineTrial({ trials, assessment, slaS: 45, fixedS: 10, budgetUsd: 10, minProbability: 0.5 }),
    ).toBeNull();
  });

  it("when asked, tries only where the engine is expected to cost a share less than the same cluster on the job's", () => {
    const assessment = assessmentOf({ small: 100, large: 100 });
    // the prior's median 1.5× on all of the run: at 1.2× the rate about 0.8 of the baseline's cost, at 1.45× about 1
    const trials = trialsOf([
      { id: 'photon-small', baselineId: 'small', usdPerNodeHour: 1.2 },
      { id: 'photon-large', baselineId: 'large', usdPerNodeHour: 1.45 },
    ]);
    const ask = (maxCostShareOfBaseline?: number, among = trials) =>
      chooseEngineTrial({
        trials: among,
        assessment,
        slaS: 1000,
        fixedS: 0,
        budgetUsd: 10,
        minProbability: 0.5,
        ...(maxCostShareOfBaseline === undefined ? {} : { maxCostShareOfBaseline }),
      });
    const paying = ask(0.9);
    expect(paying?.entry.shape).toBe('photon-small');
    expect(paying?.assessment.expectedCostUsd).toBeLessThanOrEqual(0.9 * paying!.baseline.expectedCostUsd);
    expect(ask(0.5)).toBeNull();
    // without the share, both are candidates and the cheaper is still chosen
    expect(ask()?.entry.shape).toBe('photon-small');
    // the dearer engine rate alone: a trial without the share, none with it
    const dear = trialsOf([{ id: 'photon-large', baselineId: 'large', usdPerNodeHour: 1.45 }]);
    expect(ask(undefined, dear)?.entry.shape).toBe('photon-large');
    expect(ask(0.9, dear)).toBeNull();
  });

  it('when asked, tries only where the prior keeps a run within an overrun limit likely enough', () => {
    const assessment = assessmentOf({ small: 200 });
    const trials = trialsOf([{ id: 'photon-small', baselineId: 'small', usdPerNodeHour: 1 }]);
    const ask = (overrun?: { limitS: number; minProbability: number }) =>
      chooseEngineTrial({
        trials,
        assessment,
        slaS: 150,
        fixedS: 10,
        budgetUsd: 10,
        minProbability: 0.1,
        ...(overrun ? { overrun } : {}),
      });
    // 200 s on the job's engine: the prior's median (1.5×) meets 150 s, its "no gain" tail runs past 180 s
    expect(ask()?.entry.shape).toBe('photon-small');
    expect(ask({ limitS: 180, minProbability: 0.9 })).toBeNull();
    expect(ask({ limitS: 250, minProbability: 0.9 })?.entry.shape).toBe('photon-small');
  });

  it('chooses from quantiles computed with the assessment exactly what it chooses computing them itself', () => {
    const assessment = assessmentOf({ small: 200, large: 100, large2: 101 });
    const trials = trialsOf([
      { id: 'photon-small', baselineId: 'small', usdPerNodeHour: 1 },
      { id: 'photon-large', baselineId: 'large', usdPerNodeHour: 3 },
      { id: 'photon-large2', baselineId: 'large2', usdPerNodeHour: 2 },
      { id: 'photon-unassessed', baselineId: 'missing', usdPerNodeHour: 0.1 },
    ]);
    const baselineQuantiles = trialBaselineQuantiles(
      assessment,
      trials.entries.map((trial) => trial.baselineId),
    );
    // one entry per assessed baseline, none for a baseline the assessment lacks
    expect(Object.keys(baselineQuantiles).sort()).toEqual(['large', 'large2', 'small']);
    expect(baselineQuantiles.small).toHaveLength(trialGridProbabilities.length);
    // given them, the choice searches the mixture no more: a mixture that cannot answer changes nothing
    const searched = {
      ...assessment,
      mixture: {
        quantiles: () => {
          throw new Error('searched the mixture');
        },
      },
    };
    for (const terms of [
      { slaS: 80, budgetUsd: 10, minProbability: 0.5 },
      { slaS: 1000, budgetUsd: 10, minProbability: 0.5, maxCostShareOfBaseline: 0.9 },
      { slaS: 45, budgetUsd: 10, minProbability: 0.5 },
    ]) {
      const itself = chooseEngineTrial({ trials, assessment, fixedS: 10, ...terms });
      const given = chooseEngineTrial({
        trials,
        assessment: searched as unknown as Assessment,
        fixedS: 10,
        baselineQuantiles,
        ...terms,
      });
      expect(given).toEqual(itself);
    }
    expect(
      chooseEngineTrial({ trials, assessment, fixedS: 10, slaS: 80, budgetUsd: 10, minProbability: 0.5 }),
    ).not.toBeNull();
  });
});
