import { describe, expect, it } from 'vitest';
import type { RunProfile } from '../../../eventlog/run-profile.js';
import { type EmrClusterRun, type EmrFormFactorEvidence, emrFormFactorAdvice } from './emr-form-factor.js';
import { emrServerlessPrice } from './emr-serverless-prices.js';

const hour = 3_600_000;
/** A 1-hour run: the driver and four 4-core executors, each busy `busyShare` of the hour. */
function clusterRun(usd: number, busyShare: number, runtimeMinutes = 60): EmrClusterRun {
  const executors = ['1', '2', '3', '4'].map((id) => ({
    id,
    cores: 4,
    addedTime: 0,
    removedTime: null,
    taskTimeMs: 4 * hour * busyShare,
  }));
  return {
    runtimeMinutes,
    succeeded: true,
    usd,
    profile: {
      application: { startTime: 0, endTime: hour },
      sparkConf: { 'spark.executor.memory': '14g', 'spark.driver.memory': '14g' },
      executors: { timeline: executors },
    } as unknown as RunProfile,
  };
}
const evidence = (overrides: Partial<EmrFormFactorEvidence>): EmrFormFactorEvidence => ({
  form: 'classic',
  slaMinutes: 90,
  region: 'us-east-1',
  clusterRuns: [clusterRun(4, 0.5), clusterRun(4.2, 0.5), clusterRun(4.1, 0.5)],
  serverlessRuns: [],
  price: emrServerlessPrice('us-east-1'),
  ...overrides,
});
// per run: driver 4 vCPU/16 GB for 1 h; executors 4 × (4 vCPU, 16 GB) for 0.5 h (low) to 1 h (high)
const usd = (vcpu: number, gb: number) => vcpu * 0.052624 + gb * 0.0057785;
const low = usd(4 + 16 * 0.5, 16 + 64 * 0.5);
const high = usd(4 + 16, 16 + 64);

describe('EMR form-factor advice', () => {
  it('estimates EMR Serverless from the job’s own EC2 runs, states the basis and range, and proposes a move that saves', () => {
    const advice = emrFormFactorAdvice(evidence({}));
    expect(advice).toMatchObject({ from: 'classic', to: 'serverless', verdict: 'move' });
    expect(advice.estimate?.kind).toBe('evidence');
    expect(advice.estimate?.usdPerRun.low).toBeCloseTo(low, 9);
    expect(advice.estimate?.usdPerRun.high).toBeCloseTo(high, 9);
    expect(advice.estimate?.usdPerRun.mid).toBeCloseTo((low + high) / 2, 9);
    expect(advice.currentUsdPerRun).toBe(4.1);
    expect(advice.basis.join('\n')).toMatch(/3 successful runs of this job on EMR on EC2/);
    expect(advice.basis.join('\n')).toMatch(/\$0\.052624 per vCPU-hour/);
    expect(advice.probabilityMeetsSla).toBeGreaterThan(0.9);
  });

  it('stays when EMR Serverless would cost more, and estimates nothing without a price for the region', () => {
    expect(
      emrFormFactorAdvice(evidence({ clusterRuns: [clusterRun(1, 0.9), clusterRun(1, 0.9)] })).verdict,
    ).toBe('stay');
    const unpriced = emrFormFactorAdvice(
      evidence({ region: 'ap-south-2', price: emrServerlessPrice('ap-south-2') }),
    );
    expect(unpriced.verdict).toBe('no_estimate');
    expect(unpriced.reason).toMatch(/no published EMR Serverless price for ap-south-2/);
  });

  it('advises EMR Serverless → EC2 only from measured runs on a cluster, never an invented one', () => {
    const serverless = [{ runtimeMinutes: 50, succeeded: true, usd: 3 }];
    const never = emrFormFactorAdvice(
      evidence({ form: 'serverless', clusterRuns: [], serverlessRuns: serverless }),
    );
    expect(never).toMatchObject({
      from: 'serverless',
      to: 'classic',
      verdict: 'no_estimate',
      estimate: null,
    });
    expect(never.reason).toMatch(/never ran on an EMR cluster that Setpoint saw/);
    const measured = emrFormFactorAdvice(evidence({ form: 'serverless', serverlessRuns: serverless }));
    expect(measured.estimate).toMatchObject({ kind: 'measured', usdPerRun: { mid: 4.1 } });
    expect(measured.verdict).toBe('stay');
    // the estimate from its EC2 runs, checked against what its serverless runs cost
    expect(measured.check?.measuredUsd).toBe(3);
    expect(measured.check?.error).toBeCloseTo(Math.abs((low + high) / 2 - 3) / 3, 9);
  });
});
