import {
  recommendationDecisionSchema,
  recommendationSchema,
  runDetailSchema,
  runSchema,
} from '@setpoint/api-contract';
import { describe, expect, it } from 'vitest';
import { costComponent, storedRunCost } from '../../../../../tests/support/run-costs.js';
import type { RecommendationRecord } from '../../service/recommendations/recommendation-records.js';
import type { RecommendationDecision } from '../../service/recommender/recommender.js';
import type { Run } from '../../service/runs/run-service.js';
import { presentDecision, presentRecommendation, presentRun, presentRunDetail } from './presenters.js';

const run: Run = {
  id: 'run_1',
  projectId: 'prj_1',
  externalRunId: 'j-1:s-1',
  pipelineState: 'DONE',
  status: 'SUCCESS',
  startedAt: 1_000,
  endedAt: 61_000,
  clusterConfig: null,
  clusterFacts: null,
  clusterTimeline: null,
  eventlogUri: null,
  eventlogBytes: null,
  inputBytes: null,
  cost: null,
  costPending: null,
  recommendationId: null,
  error: null,
  createdAt: 1_000,
  updatedAt: 61_000,
};
const stored = storedRunCost([
  costComponent('compute', 0.66, { platform: 'emr' }),
  costComponent('platform_fee', 0.1, { platform: 'emr', fee: 'emr_fee', billed_by: 'cloud' }),
]);

describe("the run presenter's cost", () => {
  it("passes the stored overhead through as the wire's overhead, and the result is a valid resource", () => {
    const presented = presentRun({
      ...run,
      cost: { ...stored, overhead: { seconds: 586, usd: 0.594 } },
    });
    expect(presented.cost).toEqual({
      currency: 'USD',
      total_usd: stored.totalUsd,
      low_usd: stored.lowUsd,
      high_usd: stored.highUsd,
      components: stored.components,
      overhead: { seconds: 586, usd: 0.594 },
    });
    expect(runSchema.parse(presented)).toEqual(presented);
  });

  it('presents a cost without overhead (priced over the application alone) as overhead null', () => {
    const presented = presentRunDetail({
      ...run,
      cost: stored,
      profileSummary: null,
    });
    expect(presented.cost?.overhead).toBeNull();
    expect(runDetailSchema.parse(presented).cost?.overhead).toBeNull();
  });

  it('keeps no cost as no cost', () => {
    expect(presentRun(run).cost).toBeNull();
    expect(presentRun(run).cost_pending).toBeNull();
  });

  it('says a cost waiting for its bill is pending, with the reason, and never presents it as $0', () => {
    const presented = presentRun({ ...run, costPending: 'its billing records have not landed' });
    expect(presented.cost).toBeNull();
    expect(presented.cost_pending).toEqual({
      state: 'billing_not_yet_available',
      message: 'cost pending: billing not yet available',
      reason: 'its billing records have not landed',
    });
    expect(runSchema.parse(presented)).toEqual(presented);
  });
});

describe("the recommendation presenter's prediction", () => {
  const recommendation: RecommendationRecord = {
    id: 'rec_1',
    projectId: 'prj_1',
    state: 'SUCCESS',
    phase: 'MONITORING',
    configuration: { performance_target: 'PERFORMANCE_OPTIMIZED' },
    prediction: { runtimeMinutes: { low: 4, mid: 5, high: 6 }, costUsd: { low: 0.1, mid: 0.2, high: 0.3 } },
    explanation: 'Serverless job',
    decision: null,
    basedOnRunId: 'run_1',
    basedOnRunPrunedAt: null,
    error: null,
    requestedBy: 'pipeline',
    applyRequestedAt: null,
    applyRequestedBy: null,
    createdAt: 1_000,
    updatedAt: 2_000,
  };

  it('passes a predicted cost through with no note', () => {
    const presented = recommendationSchema.parse(presentRecommendation(recommendation));
    expect(presented.predicted).toEqual({
      runtime_minutes: { low: 4, mid: 5, high: 6 },
      cost_usd: { low: 0.1, mid: 0.2, high: 0.3 },
      cost_note: null,
    });
  });

  it('says a cost not yet known (every bill pending) is not known, and never presents it as $0', () => {
    const presented = recommendationSchema.parse(
      presentRecommendation({
        ...recommendation,
        prediction: { runtimeMinutes: { low: 4, mid: 5, high: 6 }, costUsd: null },
      }),
    );
    expect(presented.predicted).toEqual({
      runtime_minutes: { low: 4, mid: 5, high: 6 },
      cost_usd: null,
      cost_note: 'cost not yet known: billing pending',
    });
  });
});

describe("the decision presenter's learning", () => {
  const decision: RecommendationDecision = {
    action: 'change',
    change: '6 × c5.xlarge → 3 × c5.4xlarge',
    sla: { kind: 'project', seconds: 120, probabilityMeets: 0.98, feasible: true },
    probabilityFails: 0.02,
    basis: { runs: 7, configurations: 7, fleetJobs: 0, shippedJobs: 0, calibrationCases: 0, closest: [] },
    filtered: [],
    notes: [],
    learning: {
      active: false,
      run: 3,
      maxRuns: 3,
      missBudget: null,
      missesSpent: 0,
      rebaseReason: null,
      exploration: { expectedImprovementUsd: 0.0042, bestKnownCostUsd: 0.061, expectedCostUsd: 0.075 },
    },
  };

  it('passes an exploration through, worded as the explanation words it, and the result is a valid resource', () => {
    const presented = presentDecision(decision);
    expect(presented.learning?.exploration).toEqual({
      expected_improvement_usd: 0.0042,
      best_known_cost_usd: 0.061,
      expected_cost_usd: 0.075,
    });
    expect(presented.learning_text).toBe(
      'not a learning run: learning is over (3 learning runs done; safe learning: every learning run is held ' +
        'to P(runtime ≤ SLA) ≥ 0.90, or to a bound from a configuration that met it (no run after the first recommendation missed)); exploring a configuration not run yet: it may ' +
        'cost less than the cheapest configuration that met the SLA so far ($0.061 a run), an expected ' +
        'improvement of $0.0042 a run, though its expected cost is $0.075',
    );
    expect(recommendationDecisionSchema.parse(presented)).toEqual(presented);
  });

  it('presents a decision recorded before explorations were told apart as no exploration', () => {
    const { exploration: _, ...before } = decision.learning!;
    const presented = presentDecision({ ...decision, learning: before });
    expect(presented.learning?.exploration).toBeNull();
    expect(presented.learning_text).not.toMatch(/exploring/);
  });

  it('names the closest fleet jobs in words, their ids beside them, with plurals that agree', () => {
    const presented = presentDecision({
      ...decision,
      basis: {
        runs: 1,
        configurations: 1,
        fleetJobs: 3,
        shippedJobs: 1,
        calibrationCases: 1,
        closest: [
          {
            label: '“Nightly orders” at 2× its data',
            weight: 0.62,
            source: 'project:prj_6c9e6e8d9d2d74d50fcd',
          },
          { label: 'the fleet model', weight: 0.2 },
        ],
      },
    });
    expect(presented.basis.closest).toEqual([
      { label: '“Nightly orders” at 2× its data', weight: 0.62, source: 'project:prj_6c9e6e8d9d2d74d50fcd' },
      { label: 'the fleet model', weight: 0.2, source: null },
    ]);
    expect(presented.basis_text).toBe(
      '1 run of this job on 1 configuration and a fleet prior of 3 jobs (1 shipped with Setpoint, 2 of this ' +
        'organization), closest: “Nightly orders” at 2× its data (62%), the fleet model (20%); probabilities ' +
        'calibrated on 1 held-out prediction',
    );
    expect(presented.basis_text).not.toMatch(/prj_|project:|\(s\)/);
    expect(recommendationDecisionSchema.parse(presented)).toEqual(presented);
  });
});
