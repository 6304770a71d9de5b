import { describe, expect, it } from 'vitest';
import type { ServerlessJobSpend } from './serverless-billing-reader.js';
import { billedServerlessCost, estimateServerlessCharge, serverlessRunCost } from './serverless-cost.js';

const spend = (entry: Partial<ServerlessJobSpend>): ServerlessJobSpend => ({
  jobId: '1',
  performanceTarget: 'PERFORMANCE_OPTIMIZED',
  runs: 1,
  dbus: 10,
  usd: 3.5,
  executionSeconds: 600,
  ...entry,
});
const where = { platform: 'databricks', cloud: 'aws' };

describe('serverless run cost', () => {
  it('is one compute component billed by the platform in DBUs', () => {
    const cost = serverlessRunCost(
      { performanceTarget: 'STANDARD', dbus: 4, usd: 1.4, basis: 'as billed' },
      where,
    );

    expect(cost.totalUsd).toBe(1.4);
    expect(cost.components).toEqual([
      {
        kind: 'compute',
        fee: null,
        platform: 'databricks',
        cloud: 'aws',
        billed_by: 'platform',
        description: 'Serverless jobs compute, standard',
        quantity: 4,
        unit: 'DBU',
        unit_price_usd: 0.35,
        usd: 1.4,
        low_usd: 1.4,
        high_usd: 1.4,
        estimated_usd: null,
      },
    ]);
  });

  it('takes the bill over the estimate and keeps the estimate through a restatement', () => {
    const estimate = serverlessRunCost(
      { performanceTarget: 'PERFORMANCE_OPTIMIZED', dbus: 10, usd: 3.5, basis: 'estimated' },
      where,
    );

    const billed = billedServerlessCost(estimate, { dbus: 12, usd: 4.2 });
    const restated = billed && billedServerlessCost(billed, { dbus: 11, usd: 3.85 });

    expect(billed?.totalUsd).toBeCloseTo(4.2, 9);
    expect(billed?.components[0]).toMatchObject({ quantity: 12, usd: 4.2, estimated_usd: 3.5 });
    expect(restated?.totalUsd).toBeCloseTo(3.85, 9);
    expect(restated?.components[0]).toMatchObject({ quantity: 11, estimated_usd: 3.5 });
  });

  it('a pending cost (no estimate) is filled in by the bill with no estimate beside it, also after a restatement', () => {
    const pending = serverlessRunCost(
      { performanceTarget: 'STANDARD', dbus: 0, usd: 0, basis: 'awaiting the bill', pending: true },
      where,
    );
    expect(pending.pending).toEqual({ reason: 'awaiting the bill' });

    const billed = billedServerlessCost(pending, { dbus: 12, usd: 4.2 });
    const restated = billed && billedServerlessCost(billed, { dbus: 11, usd: 3.85 });

    expect(billed?.pending).toBeNull();
    expect(billed?.totalUsd).toBeCloseTo(4.2, 9);
    expect(billed?.components[0]).toMatchObject({ quantity: 12, usd: 4.2, estimated_usd: null });
    expect(restated?.totalUsd).toBeCloseTo(3.85, 9);
    expect(restated?.components[0]).toMatchObject({ quantity: 11, estimated_usd: null });
  });

  it('leaves a cost without a serverless component alone', () => {
    expect(
      billedServerlessCost(
        { currency: 'USD', totalUsd: 1, lowUsd: 1, highUsd: 1, components: [] },
        {
          dbus: 1,
          usd: 1,
        },
      ),
    ).toBeUndefined();
  });
});

describe('estimateServerlessCharge', () => {
  const run = { jobId: '1', performanceTarget: 'STANDARD' as const, executionSeconds: 300 };

  it('uses the job in the same mode first', () => {
    const estimate = estimateServerlessCharge(
      [
        spend({ performanceTarget: 'STANDARD', usd: 2, dbus: 8, executionSeconds: 1000, runs: 2 }),
        spend({ usd: 100 }),
        spend({ jobId: '2', performanceTarget: 'STANDARD', usd: 100 }),
      ],
      run,
    );

    expect(estimate).toMatchObject({ usd: 0.6, dbus: 2.4, performanceTarget: 'STANDARD' });
    expect(estimate?.basis).toMatch(/this job \(2 billed runs\)/);
  });

  it('falls back to the job in either mode and says so, never to another job', () => {
    const otherMode = estimateServerlessCharge(
      [spend({}), spend({ jobId: '2', performanceTarget: 'STANDARD' })],
      run,
    );

    expect(otherMode?.basis).toMatch(/this job in either mode/);
    expect(otherMode?.usd).toBeCloseTo((3.5 / 600) * 300, 9);
    // Databricks sizes each job's serverless compute: another job's rate is no estimate of this one
    expect(estimateServerlessCharge([spend({ jobId: '2', performanceTarget: 'STANDARD' })], run)).toBeNull();
  });

  it('knows nothing without a billed run with execution time', () => {
    expect(estimateServerlessCharge([], run)).toBeNull();
    expect(estimateServerlessCharge([spend({ executionSeconds: 0 })], run)).toBeNull();
  });
});
