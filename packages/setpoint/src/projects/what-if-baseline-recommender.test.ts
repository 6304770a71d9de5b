import { describe, expect, it } from 'vitest';
import type { RunProfile } from '../eventlog/run-profile.js';
import type { RecommendationInput, RecommenderRun } from './ports.js';
import { defaultProjectSettings, type ProjectSettings } from './project-settings.js';
import { WhatIfBaselineRecommender } from './what-if-baseline-recommender.js';

/** A profile with only what the baseline reads: duration, executors and the what-if table. */
function profile(durationMs: number, whatIf: Array<[number, number]>): RunProfile {
  return {
    application: { durationMs },
    analysis: { wallTimeMs: durationMs },
    executors: { maxConcurrent: 4 },
    whatIf: whatIf.map(([executors, estimatedDurationMs]) => ({
      executors,
      estimatedDurationMs,
      estimatedUtilization: 0.5,
      observed: executors === 4,
    })),
  } as unknown as RunProfile;
}

function input(settings: Partial<ProjectSettings>): RecommendationInput {
  const run: RecommenderRun = {
    id: 'run_1',
    externalRunId: 'ext-1',
    status: 'SUCCESS',
    startedAt: 0,
    endedAt: 3_600_000,
    cluster: {
      source: 'cluster_report',
      cloud: 'aws',
      region: 'us-east-1',
      nodeTypeId: 'm5.xlarge',
      driverNodeTypeId: 'm5.xlarge',
      workers: 4,
      autoscale: null,
      photon: false,
      availability: 'ON_DEMAND',
      sparkVersion: '13.3.x-scala2.12',
    },
    clusterConfig: null,
    // 60 min on 4 workers; 2 workers take 100 min, 8 take 35 min.
    profile: profile(3_600_000, [
      [2, 6_000_000],
      [4, 3_600_000],
      [8, 2_100_000],
    ]),
    cost: { currency: 'USD', totalUsd: 10, lines: [] },
    inputBytes: null,
    recommendationId: null,
  };
  return {
    project: {
      id: 'prj_1',
      name: 'etl',
      phase: 'LEARNING',
      settings: { ...defaultProjectSettings(), ...settings },
      workspace: null,
    },
    basedOnRunId: 'run_1',
    runs: [run],
    recommendations: [],
  };
}

describe('WhatIfBaselineRecommender', () => {
  const recommender = new WhatIfBaselineRecommender();

  it('picks the cheapest worker count when there is no SLA, priced by node-hours', async () => {
    const output = await recommender.recommend(input({ preference: 'economy' }));

    // $10 / 60 min / 5 nodes = $1/30 per node-minute: 2 workers → 100·3/30 = $10, 4 → $10, 8 → 35·9/30 = $10.5.
    expect(output.configuration.num_workers).toBe(2);
    expect(output.prediction.costUsd.mid).toBeCloseTo(10, 6);
    expect(output.prediction.runtimeMinutes.mid).toBeCloseTo(100, 6);
    expect(output.prediction.runtimeMinutes.low).toBeLessThan(output.prediction.runtimeMinutes.mid);
    expect(output.prediction.runtimeMinutes.high).toBeGreaterThan(output.prediction.runtimeMinutes.mid);
  });

  it('keeps within the SLA and the worker bounds', async () => {
    const sla = await recommender.recommend(input({ preference: 'economy', slaMinutes: 50 }));
    const bounded = await recommender.recommend(input({ preference: 'economy', minWorkers: 3 }));

    expect(sla.configuration.num_workers).toBe(8);
    expect(sla.prediction.runtimeMinutes.high).toBeLessThanOrEqual(50);
    expect(bounded.configuration.num_workers).toBe(4);
  });

  it('writes the spot policy into the cloud attributes and explains the choice', async () => {
    const output = await recommender.recommend(input({ spotPolicy: 'on-demand-only' }));

    expect(output.configuration.aws_attributes).toEqual({ availability: 'ON_DEMAND', first_on_demand: 1 });
    expect(output.configuration.node_type_id).toBe('m5.xlarge');
    expect(output.explanation).toContain('ext-1');
  });
});
