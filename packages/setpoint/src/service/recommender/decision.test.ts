import { defaultProjectSettings } from '@setpoint/api-contract';
import { describe, expect, it } from 'vitest';
import type { Assessment, CandidateAssessment, Recommendation } from '../../optimizer/recommend.js';
import type { Candidate, Observation } from '../../optimizer/types.js';
import type { CandidateSpace, ShapeEntry } from './cluster-model.js';
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
});
