import { describe, expect, it } from 'vitest';
import { dailyRuns, type RunSpec } from '../../../tests/insights/run-builder.js';
import { annualRunRate, organizationRoi, projectRoi } from './roi.js';

const optimized = (specs: RunSpec[]): RunSpec[] => specs.map((spec) => ({ rec: 'rec-1', ...spec }));

describe('projectRoi', () => {
  it('is null until Setpoint has configured a successful, costed run', () => {
    expect(projectRoi(dailyRuns([{}, {}, {}]))).toBeNull();
    expect(projectRoi(dailyRuns([{}, {}, { rec: 'rec-1', status: 'FAILED' }]))).toBeNull();
    expect(projectRoi([])).toBeNull();
  });

  it('uses the cost change when input size does not explain runtime', () => {
    const runs = dailyRuns([
      { cost: 10, inputGb: 100 },
      { cost: 10, inputGb: 100 },
      { cost: 10, inputGb: 100 },
      ...optimized([
        { cost: 7, inputGb: 100 },
        { cost: 7, inputGb: 100 },
        { cost: 7, inputGb: 100 },
      ]),
    ]);
    const roi = projectRoi(runs)!;
    expect(roi.method).toBe('cost_change');
    expect(roi.reason).toBe('weak_correlation_cost_change');
    expect(roi.correlation).toBeNull();
    expect(roi.savingsFraction).toBeCloseTo(1 - 7 / 10, 12);
    expect(roi.savingsToDateUsd).toBeCloseTo(3 * (10 - 7), 9);
    expect(roi.runsPerYear).toBeCloseTo(365, 9);
    expect(roi.projected12MonthSavingsUsd).toBeCloseTo(365 * (10 - 7), 6);
  });

  it('with a strong correlation takes the cost/GB change when it is the larger saving', () => {
    const runs = dailyRuns([
      { inputGb: 100, minutes: 10, cost: 10 },
      { inputGb: 120, minutes: 12, cost: 12 },
      { inputGb: 80, minutes: 8, cost: 8 },
      { inputGb: 100, minutes: 10, cost: 10 },
      ...optimized([
        { inputGb: 200, minutes: 20, cost: 16 },
        { inputGb: 200, minutes: 20, cost: 16 },
        { inputGb: 200, minutes: 20, cost: 16 },
      ]),
    ]);
    const roi = projectRoi(runs)!;
    expect(roi.correlation).toBeCloseTo(1, 9);
    expect(roi.costChangeSavings).toBeCloseTo(1 - 16 / 10, 12);
    const baselinePerGb = 40 / 400;
    const currentPerGb = 48 / 600;
    expect(roi.costPerGbChangeSavings).toBeCloseTo(1 - currentPerGb / baselinePerGb, 12);
    expect(roi.method).toBe('cost_per_gb_change');
    expect(roi.reason).toBe('strong_correlation_larger_saving');
    expect(roi.savingsToDateUsd).toBeCloseTo(baselinePerGb * 600 - 48, 9);
  });

  it('with a strong correlation keeps the cost change when that saving is larger', () => {
    const runs = dailyRuns([
      { inputGb: 100, minutes: 10, cost: 10 },
      { inputGb: 120, minutes: 12, cost: 10 },
      { inputGb: 80, minutes: 8, cost: 10 },
      ...optimized([
        { inputGb: 90, minutes: 9, cost: 6 },
        { inputGb: 110, minutes: 11, cost: 6 },
        { inputGb: 70, minutes: 7, cost: 6 },
      ]),
    ]);
    const roi = projectRoi(runs)!;
    expect(roi.correlation).toBeGreaterThanOrEqual(0.7);
    expect(roi.costPerGbChangeSavings!).toBeLessThan(roi.costChangeSavings);
    expect(roi.method).toBe('cost_change');
    expect(roi.savingsFraction).toBeCloseTo(0.4, 12);
  });

  it('with a weak correlation falls back to cost/GB when cost rose because the data grew', () => {
    const runs = dailyRuns([
      { inputGb: 100, minutes: 10, cost: 10 },
      { inputGb: 100, minutes: 14, cost: 10 },
      { inputGb: 100, minutes: 6, cost: 10 },
      ...optimized([
        { inputGb: 150, minutes: 10, cost: 12 },
        { inputGb: 150, minutes: 13, cost: 12 },
        { inputGb: 150, minutes: 7, cost: 12 },
      ]),
    ]);
    const roi = projectRoi(runs)!;
    expect(Math.abs(roi.correlation!)).toBeLessThan(0.7);
    expect(roi.costChangeSavings).toBeLessThan(0);
    expect(roi.method).toBe('cost_per_gb_change');
    expect(roi.reason).toBe('cost_rose_with_data_growth');
    expect(roi.savingsToDateUsd).toBeCloseTo(0.1 * 450 - 36, 9);
  });

  it('reports a negative saving by cost change when cost rose without data growth', () => {
    const runs = dailyRuns([
      { inputGb: 100, minutes: 10, cost: 10 },
      { inputGb: 100, minutes: 14, cost: 10 },
      ...optimized([
        { inputGb: 100, minutes: 12, cost: 12 },
        { inputGb: 100, minutes: 8, cost: 12 },
      ]),
    ]);
    const roi = projectRoi(runs)!;
    expect(roi.method).toBe('cost_change');
    expect(roi.savingsToDateUsd).toBeCloseTo(-4, 9);
  });

  it('uses the cost change and says why when runs report no input size', () => {
    const roi = projectRoi(dailyRuns([{ cost: 8 }, ...optimized([{ cost: 6 }])]))!;
    expect(roi.method).toBe('cost_change');
    expect(roi.reason).toBe('no_input_sizes');
    expect(roi.costPerGbChangeSavings).toBeNull();
    expect(roi.savingsToDateUsd).toBeCloseTo(2, 12);
  });

  it('leaves failed and uncosted runs out of both periods', () => {
    const roi = projectRoi(
      dailyRuns([
        { cost: 10 },
        { cost: 50, status: 'FAILED' },
        { cost: null },
        ...optimized([{ cost: 5 }, { cost: 99, status: 'TIMEDOUT' }]),
      ]),
    )!;
    expect(roi.baselineRuns).toBe(1);
    expect(roi.optimizedRuns).toBe(1);
    expect(roi.savingsFraction).toBeCloseTo(0.5, 12);
  });
});

describe('annualRunRate', () => {
  it('derives runs per year from the cadence of start times', () => {
    const hourly = dailyRuns([{}, {}]).map((run, index) => ({ ...run, startedAt: index * 3_600_000 }));
    expect(annualRunRate(hourly)).toBeCloseTo(365 * 24, 9);
    expect(annualRunRate(dailyRuns([{}]))).toBe(0);
  });
});

describe('organizationRoi', () => {
  it('sums the projects that have figures and counts the methods used', () => {
    const a = projectRoi(dailyRuns([{ cost: 10 }, ...optimized([{ cost: 6 }])]))!;
    const b = projectRoi(
      dailyRuns([
        { inputGb: 100, minutes: 10, cost: 10 },
        { inputGb: 100, minutes: 14, cost: 10 },
        { inputGb: 100, minutes: 6, cost: 10 },
        ...optimized([
          { inputGb: 150, minutes: 10, cost: 12 },
          { inputGb: 150, minutes: 13, cost: 12 },
          { inputGb: 150, minutes: 7, cost: 12 },
        ]),
      ]),
    )!;
    const org = organizationRoi([a, null, b]);
    expect(org.projects).toBe(3);
    expect(org.projectsWithSavings).toBe(2);
    expect(org.savingsToDateUsd).toBeCloseTo(a.savingsToDateUsd + b.savingsToDateUsd, 12);
    expect(org.projected12MonthSavingsUsd).toBeCloseTo(
      a.projected12MonthSavingsUsd + b.projected12MonthSavingsUsd,
      12,
    );
    expect(org.methods).toEqual({ cost_change: 1, cost_per_gb_change: 1 });
  });
});
