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
  cost_pending: null,
  error: null,
  created_at: 1,
  updated_at: 2,
};
const components = [
  {
    kind: 'compute',
    fee: null,
    platform: 'emr',
    cloud: 'aws',
    billed_by: 'cloud',
    description: 'm5.xlarge, on-demand',
    quantity: 3.5,
    unit: 'node-hour',
    unit_price_usd: 0.2,
    usd: 0.7,
    low_usd: 0.7,
    high_usd: 0.7,
    estimated_usd: null,
  },
];
const money = { currency: 'USD', low_usd: 0.2, high_usd: 0.8, components };

describe("a run's cost on the wire", () => {
  it('carries the part billed outside the Spark application, in seconds and dollars', () => {
    const cost = { ...money, total_usd: 0.76, overhead: { seconds: 586, usd: 0.59 } };
    expect(runSchema.parse({ ...run, cost }).cost?.overhead).toEqual({ seconds: 586, usd: 0.59 });
  });

  it('says null when the whole cost is over the application, and never leaves the field out', () => {
    expect(runCostSchema.parse({ ...money, total_usd: 0.2, overhead: null }).overhead).toBeNull();
    expect(runCostSchema.safeParse({ ...money, total_usd: 0.2 }).success).toBe(false);
  });

  it('types every component by kind and refuses a kind it does not know', () => {
    const parsed = runCostSchema.parse({ ...money, total_usd: 0.7, overhead: null });
    expect(parsed.components[0]?.kind).toBe('compute');
    const unknown = {
      ...money,
      total_usd: 0.7,
      overhead: null,
      components: [{ ...components[0], kind: 'ec2' }],
    };
    expect(runCostSchema.safeParse(unknown).success).toBe(false);
  });

  it('refuses a negative overhead', () => {
    const negative = { ...money, total_usd: 0.2, overhead: { seconds: -1, usd: 0.1 } };
    expect(runCostSchema.safeParse(negative).success).toBe(false);
  });
});
