import { describe, expect, it } from 'vitest';
import { createCostModel } from '../../../cost/cost-model.js';
import { shippedCatalog } from '../../../pricing/catalog/shipped-catalog.js';
import { createPriceCatalog } from '../../../pricing/price-catalog.js';
import type { ConfidentChoice } from '../../../service/recommender/optimizer-recommender.js';
import type { RecommendationInput } from '../../../service/recommender/recommender.js';
import type { Run } from '../api/schema.js';
import type { JobRunEvidence } from './job-evidence.js';
import { estimateFromEvidence, savingLeft } from './saving-estimate.js';

const context = {
  cloud: 'aws' as const,
  billing: { region: 'us-west-2', plan: 'premium' as const, compute: 'jobs' as const },
  coresOf: () => 4,
  costModel: createCostModel(createPriceCatalog([shippedCatalog])),
};
const workspace = {
  id: 'wsp_1',
  platform: 'databricks',
  cloud: 'aws',
  region: 'us-west-2',
  planType: 'Premium',
  computeType: null,
};
const spec = {
  node_type_id: 'r5d.xlarge',
  num_workers: 8,
  aws_attributes: { availability: 'ON_DEMAND' as const },
};
const runOf = (id: number, minutes: number, result = 'SUCCESS'): JobRunEvidence => ({
  run: {
    run_id: String(id),
    job_id: '42',
    start_time: id * 3_600_000,
    end_time: id * 3_600_000 + minutes * 60_000,
    state: { life_cycle_state: 'TERMINATED', result_state: result },
  } as Run,
  spec,
});
const basis = {
  runs: 3,
  configurations: 1,
  fleetJobs: 56,
  shippedJobs: 56,
  calibrationCases: 0,
  closest: [],
};

function estimate(choice: Partial<ConfidentChoice>, evidence = [runOf(1, 10), runOf(2, 11), runOf(3, 10)]) {
  const seen: RecommendationInput[] = [];
  const result = estimateFromEvidence({
    jobId: '42',
    name: 'nightly',
    workspace,
    evidence,
    runsPerMonth: 30,
    context,
    confidentChoice: async (input) => {
      seen.push(input);
      return {
        current: { description: '8 × r5d.xlarge, on-demand', expectedCostUsd: 2 },
        choice: null,
        confidence: 0.9,
        slaSeconds: 660,
        hasSla: false,
        basis,
        ...choice,
      };
    },
  });
  return { result, seen };
}

const change = (predictedCostUsd: number, learning = false) => ({
  action: 'change' as const,
  predictedCostUsd,
  learning,
});

describe('savingLeft (a job Setpoint already optimizes)', () => {
  it('is what the newest recommendation leaves per run, times the runs a month', () => {
    const estimate = savingLeft([{ project: 'etl', costPerRunUsd: 1.5, latest: change(1.1) }], 20);
    expect(estimate.monthlyUsd).toBeCloseTo(8, 9);
    expect(estimate.basis).toBe(
      'what is left: the newest recommendation predicts $1.10 a run against $1.50 now; × 20.0 runs a month',
    );
    expect(estimate.note).toBeNull();
  });

  it('is $0, already optimized, when Setpoint keeps every cluster', () => {
    const estimate = savingLeft(
      [
        {
          project: 'etl',
          costPerRunUsd: 1.5,
          latest: { action: 'keep', predictedCostUsd: 1.5, learning: false },
        },
      ],
      20,
    );
    expect(estimate).toEqual({
      monthlyUsd: 0,
      basis: 'already optimized: Setpoint keeps its cluster as it is',
      note: 'nothing left: the job runs the configuration Setpoint recommends',
    });
  });

  it('never goes below $0 when the recommendation costs more than the cluster now', () => {
    const estimate = savingLeft([{ project: 'etl', costPerRunUsd: 1, latest: change(1.2, true) }], 10);
    expect(estimate.monthlyUsd).toBe(0);
    expect(estimate.basis).toContain('(a learning run: the figure firms up as Setpoint learns)');
    expect(estimate.note).toBe(
      'nothing left: the recommended configuration costs no less than the cluster now',
    );
  });

  it('is not estimated until every cluster has a recommendation, and says which waits', () => {
    const estimate = savingLeft(
      [
        { project: 'ingest', costPerRunUsd: 1, latest: change(0.5) },
        { project: 'transform', costPerRunUsd: 2, latest: null },
      ],
      10,
    );
    expect(estimate.monthlyUsd).toBeNull();
    expect(estimate.note).toMatch(/^not estimated yet: imported; transform has no recommendation yet/);
  });
});

describe('estimateFromEvidence (a job not imported yet)', () => {
  it('is the confident choice’s saving a run times the runs a month, with what it rests on', async () => {
    const { result, seen } = estimate({
      choice: { description: '4 × r5d.xlarge, on-demand', expectedCostUsd: 1.25, probabilityMeetsSla: 0.93 },
    });
    const estimated = await result;
    expect(estimated.monthlyUsd).toBeCloseTo(22.5, 9);
    expect(estimated.basis).toBe(
      '3 runs of this job on 8 × r5d.xlarge, on-demand and the fleet model (56 jobs): 4 × r5d.xlarge, on-demand is expected to cost $1.25 a run against $2.00, 93% likely to keep within 11.0 min (its best runtime + 10%); × 30.0 runs a month',
    );
    expect(estimated.note).toBeNull();
    // The optimizer read the job's own runs, oldest first, each priced from the catalog for its cluster.
    const runs = seen[0]?.runs ?? [];
    expect(runs.map((run) => run.externalRunId)).toEqual(['1', '2', '3']);
    expect(seen[0]?.basedOnRunId).toBe('job-run-3');
    expect(runs[1]?.profile.application.durationMs).toBe(11 * 60_000);
    expect(runs[1]?.cost.totalUsd).toBeGreaterThan(runs[0]?.cost.totalUsd ?? Infinity);
  });

  it('is $0 with the reason when nothing cheaper is confident enough', async () => {
    const estimated = await estimate({}).result;
    expect(estimated).toMatchObject({
      monthlyUsd: 0,
      note: 'nothing to save yet: no configuration is 90% likely to keep within 11.0 min (its best runtime + 10%)',
    });
  });

  it('is not estimated without a successful run, and asks the optimizer nothing', async () => {
    const { result, seen } = estimate({}, [runOf(1, 10, 'FAILED')]);
    expect(await result).toEqual({
      monthlyUsd: null,
      basis: null,
      note: 'not estimated: no run in the window succeeded, so there is no runtime to learn from',
    });
    expect(seen).toEqual([]);
  });
});
