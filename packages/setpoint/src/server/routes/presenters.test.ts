import { runDetailSchema, runSchema } from '@setpoint/api-contract';
import { describe, expect, it } from 'vitest';
import type { Run } from '../../service/runs/run-service.js';
import { presentRun, presentRunDetail } from './presenters.js';

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
  recommendationId: null,
  error: null,
  createdAt: 1_000,
  updatedAt: 61_000,
};
const lines = [
  { item: 'ec2', usd: 0.66 },
  { item: 'emr', usd: 0.1 },
];

describe("the run presenter's cost", () => {
  it("passes the stored overhead through as the wire's overhead, and the result is a valid resource", () => {
    const presented = presentRun({
      ...run,
      cost: { currency: 'USD', totalUsd: 0.76, lines, overhead: { seconds: 586, usd: 0.594 } },
    });
    expect(presented.cost).toEqual({
      currency: 'USD',
      total_usd: 0.76,
      lines,
      overhead: { seconds: 586, usd: 0.594 },
    });
    expect(runSchema.parse(presented)).toEqual(presented);
  });

  it('presents a cost without overhead (priced over the application alone) as overhead null', () => {
    const presented = presentRunDetail({
      ...run,
      cost: { currency: 'USD', totalUsd: 0.2, lines },
      profileSummary: null,
    });
    expect(presented.cost?.overhead).toBeNull();
    expect(runDetailSchema.parse(presented).cost?.overhead).toBeNull();
  });

  it('keeps no cost as no cost', () => {
    expect(presentRun(run).cost).toBeNull();
  });
});
