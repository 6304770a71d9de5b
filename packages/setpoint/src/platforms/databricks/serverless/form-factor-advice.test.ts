import { describe, expect, it } from 'vitest';
import {
  type FormFactorEvidence,
  type DatabricksFormFactorRun as FormFactorRun,
  formFactorAdvice,
} from './form-factor-advice.js';

const run = (runtimeMinutes: number, usd: number, dbus: number): FormFactorRun => ({
  runtimeMinutes,
  succeeded: true,
  usd,
  dbus,
});
const price = { usdPerDbu: 0.35, source: 'the list price' };
const classic: FormFactorEvidence = {
  form: 'classic',
  slaMinutes: 60,
  classicRuns: [run(20, 4, 10), run(22, 4.4, 11), run(21, 4.2, 10.5)],
  serverlessRuns: [],
  serverlessPrice: price,
  conversions: [],
};

describe('formFactorAdvice', () => {
  it('without a job that moved, estimates DBU for DBU and proposes nothing (an assumption is not evidence)', () => {
    const advice = formFactorAdvice(classic);

    expect(advice).toMatchObject({ from: 'classic', to: 'serverless', verdict: 'estimate_only' });
    expect(advice.estimate?.kind).toBe('assumption');
    expect(advice.estimate?.usdPerRun.mid).toBeCloseTo(10.5 * 0.35, 9);
    expect(advice.estimate?.usdPerRun.low).toBeCloseTo((10.5 / 2) * 0.35, 9);
    expect(advice.savingUsdPerRun).toBeCloseTo(4.2 - 10.5 * 0.35, 9);
  });

  it("with a moved job's evidence, proposes the move when it saves 10 % and the SLA holds with P >= 0.9", () => {
    const advice = formFactorAdvice({
      ...classic,
      conversions: [{ job: 'moved', dbuRatio: 0.5, runtimeRatio: 0.8 }],
    });

    expect(advice.verdict).toBe('move');
    expect(advice.estimate).toMatchObject({ kind: 'evidence', runtimeMinutes: 21 * 0.8 });
    expect(advice.estimate?.usdPerRun.mid).toBeCloseTo(10.5 * 0.5 * 0.35, 9);
    expect(advice.probabilityMeetsSla).toBeGreaterThan(0.99);
    expect(advice.basis.join(' ')).toMatch(/1 job of this workspace ran in both forms \(moved\)/);
  });

  it('keeps the job where it is when the other form would miss the SLA or save too little', () => {
    const slow = formFactorAdvice({
      ...classic,
      slaMinutes: 25,
      conversions: [{ job: 'moved', dbuRatio: 0.5, runtimeRatio: 1.3 }],
    });
    const dear = formFactorAdvice({
      ...classic,
      conversions: [{ job: 'moved', dbuRatio: 1.5, runtimeRatio: 0.8 }],
    });
    const noSla = formFactorAdvice({
      ...classic,
      slaMinutes: null,
      conversions: [{ job: 'moved', dbuRatio: 0.5, runtimeRatio: 0.8 }],
    });

    expect(slow.verdict).toBe('stay');
    expect(slow.reason).toMatch(/the SLA does not support the move/);
    expect(dear.verdict).toBe('stay');
    expect(dear.reason).toMatch(/% more in the other form/);
    expect(noSla.verdict).toBe('stay');
    expect(noSla.reason).toMatch(/no SLA is set/);
  });

  it('prices a cluster for a serverless job only from its own cluster runs, and checks the estimate once it moved', () => {
    const never = formFactorAdvice({
      ...classic,
      form: 'serverless',
      classicRuns: [],
      serverlessRuns: [run(10, 2, 5.7)],
    });
    const both = formFactorAdvice({
      ...classic,
      form: 'serverless',
      serverlessRuns: [run(10, 2, 5.7), run(11, 2.2, 6.3)],
    });

    expect(never.verdict).toBe('no_estimate');
    expect(never.reason).toMatch(/never ran on a job cluster/);
    expect(both.estimate).toMatchObject({ kind: 'measured' });
    expect(both.estimate?.usdPerRun.mid).toBeCloseTo(4.2, 9);
    expect(both.verdict).toBe('stay');
    // its cluster runs' estimate for serverless (DBU for DBU) against the measured serverless median
    expect(both.check?.estimatedUsd).toBeCloseTo(10.5 * 0.35, 9);
    expect(both.check?.measuredUsd).toBeCloseTo(2.1, 9);
    expect(both.check?.error).toBeCloseTo(Math.abs(10.5 * 0.35 - 2.1) / 2.1, 9);
  });

  it('says why there is no estimate without a serverless price', () => {
    const advice = formFactorAdvice({
      ...classic,
      serverlessPrice: null,
      serverlessPriceMissing: 'no warehouse',
    });

    expect(advice).toMatchObject({ verdict: 'no_estimate', reason: 'no serverless price: no warehouse' });
  });
});
