import { describe, expect, it } from 'vitest';
import { CostTotalsBuilder, costByKind, feeLabel, kindUsd, platformLabel } from './cost-totals.js';

const component = (
  kind: 'compute' | 'platform_fee' | 'storage',
  usd: number,
  platform: string,
  fee: string | null = null,
) => ({
  kind,
  fee,
  platform,
  cloud: 'aws',
  billed_by: 'cloud' as const,
  usd,
});

describe('cost totals', () => {
  const databricks = [
    component('compute', 3, 'databricks'),
    component('platform_fee', 2, 'databricks', 'dbu'),
  ];
  const emr = [
    component('compute', 1.5, 'emr'),
    component('storage', 0.25, 'emr'),
    component('platform_fee', 0.75, 'emr', 'emr_fee'),
  ];

  it('sums every run by kind, fee and platform: an EMR run counts like any other', () => {
    const totals = new CostTotalsBuilder().addRun(databricks).addRun(emr).build();
    expect(totals.total_usd).toBe(7.5);
    expect(totals.by_kind).toEqual({ compute: 4.5, platform_fee: 2.75, storage: 0.25, network: 0, other: 0 });
    expect(totals.platform_fees).toEqual([
      { fee: 'dbu', usd: 2 },
      { fee: 'emr_fee', usd: 0.75 },
    ]);
    expect(totals.platforms).toEqual([
      { platform: 'databricks', usd: 5 },
      { platform: 'emr', usd: 2.5 },
    ]);
    expect(totals.runs).toBe(2);
  });

  it('adds totals already summed as if their runs were added one by one', () => {
    const a = new CostTotalsBuilder().addRun(databricks).build();
    const b = new CostTotalsBuilder().addRun(emr).build();
    expect(new CostTotalsBuilder().addTotals(a).addTotals(b).build()).toEqual(
      new CostTotalsBuilder().addRun(databricks).addRun(emr).build(),
    );
  });

  it('reads one kind (or one fee) of a run, and the run by kind at a factor', () => {
    expect(kindUsd(emr, 'platform_fee')).toBe(0.75);
    expect(kindUsd([...databricks, ...emr], 'platform_fee', 'dbu')).toBe(2);
    expect(costByKind(emr, (c) => (c.kind === 'compute' ? 0.5 : 1))).toEqual({
      compute: 0.75,
      platform_fee: 0.75,
      storage: 0.25,
      network: 0,
      other: 0,
    });
  });

  it('names fees for people without knowing them', () => {
    expect(feeLabel('dbu')).toBe('DBU');
    expect(feeLabel('emr_fee')).toBe('EMR fee');
    expect(feeLabel('serverless-compute')).toBe('serverless compute');
    expect(platformLabel('emr')).toBe('EMR');
    expect(platformLabel('databricks')).toBe('Databricks');
  });
});
