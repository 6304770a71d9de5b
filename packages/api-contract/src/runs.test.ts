import { describe, expect, it } from 'vitest';
import { runCostSchema, runSchema } from './runs.js';

const run = {
  id: 'run_1',
  project_id: 'prj_1',
  external_run_id: 'j-1:s-1',
  pipeline_state: 'DONE',
  status: 'SUCCESS',
  started_at: 1,
  ended_at: 2,
  cluster: null,
  cluster_config: null,
  eventlog_uri: null,
  eventlog_bytes: null,
  input_bytes: null,
  on_recommendation_id: null,
  error: null,
  created_at: 1,
  updated_at: 2,
};
const lines = [{ item: 'ec2', usd: 0.7 }];

describe("a run's cost on the wire", () => {
  it('carries the part billed outside the Spark application, in seconds and dollars', () => {
    const cost = { currency: 'USD', total_usd: 0.76, lines, overhead: { seconds: 586, usd: 0.59 } };
    expect(runSchema.parse({ ...run, cost }).cost?.overhead).toEqual({ seconds: 586, usd: 0.59 });
  });

  it('says null when the whole cost is over the application, and never leaves the field out', () => {
    expect(
      runCostSchema.parse({ currency: 'USD', total_usd: 0.2, lines, overhead: null }).overhead,
    ).toBeNull();
    expect(runCostSchema.safeParse({ currency: 'USD', total_usd: 0.2, lines }).success).toBe(false);
  });

  it('refuses a negative overhead', () => {
    const negative = { currency: 'USD', total_usd: 0.2, lines, overhead: { seconds: -1, usd: 0.1 } };
    expect(runCostSchema.safeParse(negative).success).toBe(false);
  });
});
