import { describe, expect, it } from 'vitest';
import { computeCost } from '../../../../../tests/support/run-costs.js';
import type { ModelProfile } from '../../eventlog/model-profile.js';
import { uninformedPrior } from '../../optimizer/fleet-prior.js';
import { JobOptimizer } from '../../optimizer/recommend.js';
import type { Candidate } from '../../optimizer/types.js';
import type { RecommenderRun } from './recommender-run.js';
import { observationOf, overheadSecondsOf } from './run-evidence.js';

/** A run of `runtimeS` on a cluster billed `overhead` more (seconds, dollars) outside its application. */
function run(
  runtimeS: number,
  totalUsd: number,
  inputBytes: number,
  overhead?: { seconds: number; usd: number },
): RecommenderRun {
  const profile = {
    application: { durationMs: runtimeS * 1000, exitCode: 0 },
    analysis: { wallTimeMs: runtimeS * 1000 },
    executors: { maxConcurrent: 4, coresPerExecutor: 8 },
    stages: [],
    stageCount: 0,
    totals: { failedJobs: 0, inputBytes, executorRunTimeMs: 0, diskBytesSpilled: 0 },
  } as unknown as ModelProfile;
  return {
    id: 'run',
    externalRunId: 'run',
    status: 'SUCCESS',
    startedAt: null,
    endedAt: null,
    cluster: {} as RecommenderRun['cluster'],
    clusterConfig: null,
    profile,
    cost: { ...computeCost(totalUsd), ...(overhead ? { overhead } : {}) },
    inputBytes,
    recommendationId: null,
  };
}

const candidate = (id: string, nodes: number): Candidate => ({
  id,
  instanceType: 'm5.2xlarge',
  engine: 'standard' as const,
  storage: null,
  nodes,
  vcpusPerNode: 8,
  memoryGibPerNode: 32,
  priceUsdPerNodeHour: 0.5,
});

describe('a run as the optimizer sees it: the part that scales with runtime and the billed overhead', () => {
  it('scales only the application’s part with the input; the overhead stays as billed', () => {
    // $1.00 in all: $0.60 over 600 s of application, $0.40 for 480 s of start-up and idle
    const observed = observationOf(run(600, 1, 100, { seconds: 480, usd: 0.4 }), 'c', 200);
    expect(observed.runtimeS).toBe(1200);
    expect(observed.costUsd).toBeCloseTo(0.6 * 2 + 0.4, 12);
    expect(observed.overheadUsd).toBe(0.4);
    // a platform that bills only the application: the whole cost scales, as before
    expect(observationOf(run(600, 1, 100), 'c', 200)).toMatchObject({ costUsd: 2, runtimeS: 1200 });
    expect(observationOf(run(600, 1, 100), 'c', 200).overheadUsd).toBeUndefined();
  });

  it('the job’s overhead is the median of its runs’ (0 where none is billed)', () => {
    expect(overheadSecondsOf([run(600, 1, 1), run(600, 1, 1, { seconds: 480, usd: 0.4 })])).toBe(240);
    expect(overheadSecondsOf([600, 500, 700].map((s) => run(600, 1, 1, { seconds: s, usd: 0.1 })))).toBe(600);
    expect(overheadSecondsOf([run(600, 1, 1)])).toBe(0);
  });

  it('prices each candidate’s overhead at its own rate: an untried bigger cluster does not look cheaper than the kept one', () => {
    // 4 nodes at $0.50/node-h = $2/h: 600 s of application ($0.333) + 600 s of overhead ($0.333)
    const kept = candidate('4n', 4);
    const bigger = candidate('5n', 5);
    const observations = [{ ...observationOf(run(600, 2 / 3, 1, { seconds: 600, usd: 1 / 3 }), '4n', 1) }];
    const optimizer = new JobOptimizer(uninformedPrior(['m5']), [kept, bigger]);
    const withOverhead = optimizer.assess({
      candidates: [kept, bigger],
      observations,
      currentCandidateId: '4n',
      overheadSeconds: 600,
    });
    const byId = new Map(withOverhead.assessments.map((a) => [a.candidate.id, a]));
    // the kept cluster is predicted at what it cost, overhead included
    expect(byId.get('4n')?.expectedCostUsd).toBeGreaterThan(0.9 * (2 / 3));
    // even at the ideal 4/5 runtime, 5 nodes cost $2.50/h × (480 s + 600 s) = $0.75 > $0.667
    expect(byId.get('5n')?.expectedCostUsd).toBeGreaterThan(2 / 3);
    expect(byId.get('5n')?.expectedCostUsd).toBeGreaterThanOrEqual((2.5 / 3600) * 600 + (2.5 / 3600) * 400);
    // without the overhead, the bigger cluster would be compared on its runtime alone
    const runtimeOnly = optimizer.assess({
      candidates: [kept, bigger],
      observations,
      currentCandidateId: '4n',
    });
    const bare = runtimeOnly.assessments.find((a) => a.candidate.id === '5n')?.expectedCostUsd as number;
    expect(bare).toBeLessThan(byId.get('5n')?.expectedCostUsd as number);
    expect((byId.get('5n')?.expectedCostUsd as number) - bare).toBeCloseTo(
      ((1 - (byId.get('5n')?.probabilityFails as number)) * 2.5 * 600) / 3600 +
        ((byId.get('5n')?.probabilityFails as number) * 2.5 * 600) / 3600,
      6,
    );
  });
});
