import { defaultProjectSettings } from '@setpoint/api-contract';
import { describe, expect, it } from 'vitest';
import type { Assessment, CandidateAssessment, Recommendation } from '../../optimizer/recommend.js';
import type { Candidate, Observation } from '../../optimizer/types.js';
import type { CandidateSpace, EngineTrials, ShapeEntry, SpeedupPrior } from './cluster-model.js';
import { decide, learningText } from './decision.js';
import type { RecommenderRun } from './recommender-run.js';

/** A shape is its id here: "<workers>|<market>". */
type Shape = { workers: number; market: 'spot' | 'on-demand' };
const idOf = (shape: Shape) => `${shape.workers}|${shape.market}`;
const model = {
  shapeId: idOf,
  onDemandTwin: (shape: Shape): Shape | null =>
    shape.market === 'spot' ? { ...shape, market: 'on-demand' } : null,
  describe: (shape: Shape) => `${shape.workers} × m5.xlarge, ${shape.market}`,
};

/** Candidates with the probability of meeting the SLA and the runtime the test gives them. */
function world(entries: Array<{ shape: Shape; pSla: number; runtimeS: number }>) {
  const space: CandidateSpace<Shape> = {
    entries: [],
    byId: new Map(),
    allowedFamilies: ['m5'],
    filtered: [],
  };
  const assessments: CandidateAssessment[] = entries.map(({ shape, pSla, runtimeS }, index) => {
    const candidate: Candidate = {
      id: idOf(shape),
      instanceType: 'm5.xlarge',
      engine: 'standard' as const,
      storage: null,
      nodes: shape.workers,
      vcpusPerNode: 4,
      memoryGibPerNode: 16,
      priceUsdPerNodeHour: shape.market === 'spot' ? 0.1 : 0.2,
    };
    const entry: ShapeEntry<Shape> = { candidate, shape, allowed: true };
    space.entries.push(entry);
    space.byId.set(candidate.id, entry);
    return {
      candidate,
      index,
      expectedRuntimeS: runtimeS,
      expectedCostUsd: (shape.workers * candidate.priceUsdPerNodeHour * runtimeS) / 3600,
      probabilityMeetsSla: pSla,
      probabilityFails: 0,
      expectedImprovementUsd: 0,
      tried: false,
    };
  });
  const assessment = {
    assessments,
    mixture: { quantile: (index: number) => assessments[index]?.expectedRuntimeS ?? 0 },
  } as unknown as Assessment;
  return { space, assessment, assessments };
}

const basedOn = { profile: { stages: [] } } as unknown as RecommenderRun;
const withSla = { ...defaultProjectSettings(), slaMinutes: 10 };

function decideFor(
  entries: Array<{ shape: Shape; pSla: number; runtimeS: number }>,
  chosenId: string,
  currentId = idOf(entries[0]!.shape),
  observations: Observation[] = [],
) {
  const { space, assessment } = world(entries);
  return decide({
    model,
    space,
    recommendation: { candidateId: chosenId } as Recommendation,
    assessment,
    observations,
    currentId,
    settings: withSla,
    allowed: () => true,
    basedOn,
  });
}

describe('decide', () => {
  const spot8 = { workers: 8, market: 'spot' } as const;
  const onDemand8 = { workers: 8, market: 'on-demand' } as const;
  const spot32 = { workers: 32, market: 'spot' } as const;

  it('takes the on-demand twin when the SLA is likely met but without the margin an interruption eats', () => {
    const decided = decideFor(
      [
        { shape: spot8, pSla: 0.92, runtimeS: 500 },
        { shape: onDemand8, pSla: 0.92, runtimeS: 500 },
      ],
      idOf(spot8),
    );
    expect(decided.entry.shape).toEqual(onDemand8);
    expect(decided.notes[0]).toMatch(/on-demand workers instead of spot: P\(runtime ≤ SLA\) is 0\.92/);
  });

  it('keeps spot when the SLA is safe', () => {
    const decided = decideFor(
      [
        { shape: spot8, pSla: 0.995, runtimeS: 500 },
        { shape: onDemand8, pSla: 0.995, runtimeS: 500 },
      ],
      idOf(spot8),
    );
    expect(decided.entry.shape).toEqual(spot8);
    expect(decided.notes).toEqual([]);
  });

  it('never pays more to miss: with no feasible candidate, the fastest at no more than today, and no market switch', () => {
    const decided = decideFor(
      [
        { shape: spot8, pSla: 0.01, runtimeS: 900 },
        { shape: onDemand8, pSla: 0.02, runtimeS: 880 },
        { shape: spot32, pSla: 0.2, runtimeS: 700 },
      ],
      // the optimizer's rescue: the likeliest to meet the SLA, whatever it costs
      idOf(spot32),
    );
    expect(decided.feasible).toBe(false);
    expect(decided.entry.shape).toEqual(spot8);
    expect(decided.notes[0]).toMatch(/^SLA infeasible: fastest predicted 11\.7 min on 32 × m5\.xlarge, spot/);
    expect(decided.notes[1]).toMatch(/will not pay more to miss it: the current cluster is the fastest/);
  });

  it('budgets an infeasible SLA at the cheapest configuration run, not at a wide learning run', () => {
    const entries = [
      { shape: spot32, pSla: 0.2, runtimeS: 700 },
      { shape: spot8, pSla: 0.01, runtimeS: 900 },
      { shape: onDemand8, pSla: 0.02, runtimeS: 880 },
    ];
    const { assessment } = world(entries);
    const costOf = (shape: Shape) =>
      assessment.assessments.find((entry) => entry.candidate.id === idOf(shape))?.expectedCostUsd ?? 0;
    const run = (shape: Shape, costUsd: number): Observation =>
      ({ candidateId: idOf(shape), completed: true, costUsd, runtimeS: 800 }) as Observation;
    // the job ran once on 8 workers (cheap), then a learning run on 32 (expensive): it now runs on 32
    const decided = decideFor(entries, idOf(spot32), idOf(spot32), [
      run(spot8, costOf(spot8)),
      run(spot32, costOf(spot32)),
    ]);
    expect(decided.feasible).toBe(false);
    expect(decided.assessment.expectedCostUsd).toBeLessThanOrEqual(costOf(spot8));
    expect(decided.notes[1]).toMatch(
      /at no more than \$\d+\.\d\d, the cheapest this job has run \(8 × m5\.xlarge, spot\)/,
    );
  });
});

/**
 * A job whose skewed stage sets a floor no standard cluster gets under: every cluster on its engine runs
 * about 1.45 × its 10-minute SLA. Photon, which it never ran, speeds up the executors' share of the run by
 * what its own run allows: 47% of its task time is CPU work Photon runs, so 1 / (0.53 + 0.47 / s) with
 * Photon's CPU speed-up s at 1, 3 and 6 gives a prior of 1.46× (1.0–1.64×).
 */
describe("decide, an SLA no cluster on the job's engine meets", () => {
  const sharePrior: SpeedupPrior = {
    low: 1,
    mid: 1.46,
    high: 1.64,
    source: "this run's task metrics: 47% of executor task time is CPU work Photon runs",
    ofJob: true,
  };
  const slaS = 600;
  const driverS = 30;
  /** Runtimes uniform within ±5% of each candidate's, in p: the mixture's quantiles and its CDF agree. */
  function trialWorld(
    standard: Array<{ shape: Shape; runtimeS: number }>,
    photon: Array<{ shape: Shape; usdPerNodeHour: number }>,
    prior: SpeedupPrior = sharePrior,
  ) {
    const within = (runtimeS: number, limitS: number) =>
      Math.min(1, Math.max(0, (limitS / runtimeS - 0.95) / 0.1));
    const { space, assessment, assessments } = world(
      standard.map(({ shape, runtimeS }) => ({ shape, runtimeS, pSla: within(runtimeS, slaS) })),
    );
    const runtimeOf = (index: number) => assessments[index]?.expectedRuntimeS ?? 0;
    Object.assign(assessment, {
      mixture: {
        quantile: (index: number, p: number) => runtimeOf(index) * (0.95 + 0.1 * p),
        quantiles: (index: number, ps: readonly number[]) =>
          ps.map((p) => runtimeOf(index) * (0.95 + 0.1 * p)),
        probabilityBelow: (index: number, limitS: number) => within(runtimeOf(index), limitS),
      },
    });
    const trials: EngineTrials<Shape> = {
      engine: 'Photon',
      speedup: prior,
      entries: photon.map(({ shape, usdPerNodeHour }) => {
        const baseline = space.byId.get(idOf(shape)) as ShapeEntry<Shape>;
        return {
          entry: {
            candidate: {
              ...baseline.candidate,
              id: `photon ${idOf(shape)}`,
              engine: 'photon' as const,
              priceUsdPerNodeHour: usdPerNodeHour,
            },
            shape,
            allowed: true,
          },
          baselineId: idOf(shape),
        };
      }),
    };
    space.trials = trials;
    const observations: Observation[] = [
      {
        candidateId: idOf(standard[0]!.shape),
        completed: true,
        runtimeS: standard[0]!.runtimeS,
        costUsd: assessments[0]!.expectedCostUsd,
      } as Observation,
    ];
    return decide({
      model,
      space,
      recommendation: { candidateId: idOf(standard[0]!.shape), phase: 'LEARNING' } as Recommendation,
      assessment,
      observations,
      currentId: idOf(standard[0]!.shape),
      settings: withSla,
      allowed: () => true,
      basedOn: {
        profile: { stages: [], analysis: { driverTimeMs: driverS * 1000 } },
      } as unknown as RecommenderRun,
    });
  }
  const od8 = { workers: 8, market: 'on-demand' } as const;
  const od16 = { workers: 16, market: 'on-demand' } as const;

  it('tries Photon, never run, when its prior leaves it a chance to meet the SLA, rather than call the SLA infeasible', () => {
    const decided = trialWorld(
      [
        { shape: od8, runtimeS: 1.45 * slaS },
        { shape: od16, runtimeS: 1.42 * slaS },
      ],
      [{ shape: od8, usdPerNodeHour: 0.26 }],
    );
    expect(decided.trial).toMatchObject({ engine: 'Photon', reason: 'sla' });
    expect(decided.entry.candidate.engine).toBe('photon');
    // the prior's median leaves the trial short of an even chance: the rule that asked for one called the
    // SLA infeasible here about an engine the job never ran
    expect(decided.assessment.probabilityMeetsSla).toBeLessThan(0.5);
    expect(decided.assessment.probabilityMeetsSla).toBeGreaterThan(0.1);
    expect(decided.notes.join(' ')).toMatch(/SLA infeasible without Photon; trying Photon/);
  });

  it('calls the SLA infeasible, and says why Photon is not tried, where no trial could meet it, fit the budget or stay within 1.5× the SLA', () => {
    const notesOf = (decided: ReturnType<typeof trialWorld>) => {
      expect(decided.trial).toBeNull();
      expect(decided.feasible).toBe(false);
      expect(decided.entry.candidate.engine).toBe('standard');
      return decided.notes.join(' ');
    };
    // twice the SLA: even the prior's 1.64× leaves Photon over it
    expect(
      notesOf(trialWorld([{ shape: od8, runtimeS: 2 * slaS }], [{ shape: od8, usdPerNodeHour: 0.26 }])),
    ).toMatch(
      /Photon, which this job has not run, is not tried: no allowed Photon cluster could meet the SLA, even at the optimistic end of its speed-up prior \(1\.64×/,
    );
    // Photon's rate at four times the job's: over the learning budget (3 × the cheapest run)
    expect(
      notesOf(trialWorld([{ shape: od8, runtimeS: 1.45 * slaS }], [{ shape: od8, usdPerNodeHour: 1.2 }])),
    ).toMatch(/is expected to cost more than \$\d+\.\d\d a run, 3× the cheapest this job has run/);
    // 1.6 × the SLA: a chance to meet it, but too likely to run past 1.5× it
    const overrunning = trialWorld(
      [{ shape: od8, runtimeS: 1.6 * slaS }],
      [{ shape: od8, usdPerNodeHour: 0.26 }],
    );
    expect(notesOf(overrunning)).toMatch(
      /may run past 1\.5× the SLA \(P\(runtime ≤ 1\.5× SLA\) below 0\.9\)/,
    );
  });
});

describe('learningText', () => {
  it('says what bounds a safe learning run made by expansion, besides its probability', () => {
    const text = learningText({
      sla: { kind: 'project', seconds: 1200, probabilityMeets: 0.62, feasible: true },
      learning: {
        active: true,
        run: 3,
        maxRuns: 8,
        missBudget: null,
        missesSpent: 0,
        rebaseReason: null,
        exploration: null,
        expansion: { from: '12 × m5.xlarge, on-demand', boundSeconds: 900 },
      },
    });
    expect(text).toBe(
      'learning run 3 of at most 8: it may miss the SLA: P(runtime ≤ SLA) = 0.62; safe learning: every ' +
        'learning run is held to P(runtime ≤ SLA) ≥ 0.90, or to a bound from a configuration that met it ' +
        '(no run after the first recommendation missed); safe by expansion: 12 × m5.xlarge, on-demand met ' +
        "the SLA, and its slowest run scaled perfectly to this cluster's cores takes 15.0 min",
    );
  });

  it('states a learning run held to the confidence by its probability alone, without the miss warning', () => {
    const text = learningText({
      sla: { kind: 'project', seconds: 1200, probabilityMeets: 0.98, feasible: true },
      learning: {
        active: true,
        run: 5,
        maxRuns: 8,
        missBudget: null,
        missesSpent: 0,
        rebaseReason: null,
        exploration: null,
        expansion: null,
      },
    });
    expect(text).toMatch(/^learning run 5 of at most 8: P\(runtime ≤ SLA\) = 0\.98; safe learning: /);
    expect(text).not.toContain('may miss');
  });
});
