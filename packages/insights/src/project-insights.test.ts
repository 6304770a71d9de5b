import { describe, expect, it } from 'vitest';
import { dailyRuns, day, repeat, start } from '../../../tests/insights/run-builder.js';
import {
  dormant,
  externalConfigChange,
  overProvisioned,
  projectInsights,
  repeatedFailures,
  runtimeRegression,
  runtimeRising,
  slaAtRisk,
  spotInterruptions,
  variableDataSize,
} from './project-insights.js';

describe('variableDataSize', () => {
  it('flags input sizes that swing widely and stays quiet for steady ones', () => {
    expect(variableDataSize(dailyRuns([50, 200, 80, 400, 60].map((inputGb) => ({ inputGb }))))?.kind).toBe(
      'variable_data_size',
    );
    expect(variableDataSize(dailyRuns([100, 105, 98, 102, 101].map((inputGb) => ({ inputGb }))))).toBeNull();
    expect(variableDataSize(dailyRuns([50, 400].map((inputGb) => ({ inputGb }))))).toBeNull();
  });
});

describe('dormant', () => {
  it('flags a project whose last run is older than the threshold', () => {
    const runs = dailyRuns([{}, {}]);
    const lastStart = start + day;
    expect(dormant(runs, lastStart + 20 * day, 14)?.message).toContain('20 days');
    expect(dormant(runs, lastStart + 13 * day, 14)).toBeNull();
    expect(dormant([], lastStart, 14)).toBeNull();
  });
});

describe('slaAtRisk', () => {
  it('follows the rolling SLA-hit rate of the last ten runs, not the latest run alone', () => {
    // the latest run missed, but it is the only miss in ten: 90% holds the target
    const oneLate = dailyRuns([...repeat(9, () => ({ minutes: 20 })), { minutes: 30.5 }]);
    expect(slaAtRisk(oneLate, 30)).toBeNull();
    // two misses in the last ten (the latest on time): at risk
    const insight = slaAtRisk(
      dailyRuns([
        { minutes: 31 },
        ...repeat(4, () => ({ minutes: 20 })),
        { minutes: 30.02 },
        ...repeat(4, () => ({ minutes: 20 })),
      ]),
      30,
    );
    expect(insight?.severity).toBe('critical');
    expect(insight?.runId).toBe('run-5');
    expect(insight?.message).toBe(
      '2 of the last 10 runs missed the 30 min SLA: 80% met, below the 90% target. The newest miss took 30.02 min.',
    );
    expect(slaAtRisk(oneLate, null)).toBeNull();
  });
});

describe('runtimeRising', () => {
  it('warns when the runtime trend reaches the SLA within the horizon, while it is still met', () => {
    const rising = dailyRuns([16, 18, 20, 22, 24].map((minutes) => ({ minutes })));
    // slope 2 min per run: the 5th run from now would take 24 + 5·2 = 34 min
    expect(runtimeRising(rising, 30)?.severity).toBe('warning');
    expect(runtimeRising(rising, 40)).toBeNull();
    expect(runtimeRising(dailyRuns([24, 22, 20, 18].map((minutes) => ({ minutes }))), 25)).toBeNull();
    expect(runtimeRising(rising, null)).toBeNull();
    // over the SLA already: that is the SLA health's, not a warning
    expect(runtimeRising(dailyRuns([16, 18, 20, 22, 31].map((minutes) => ({ minutes }))), 30)).toBeNull();
  });
});

describe('runtimeRegression', () => {
  it('flags a much slower run on the same configuration and input size', () => {
    const runs = dailyRuns([
      ...repeat(4, () => ({ minutes: 10, inputGb: 100 })),
      { minutes: 15, inputGb: 102 },
    ]);
    expect(runtimeRegression(runs)?.runId).toBe('run-4');
  });

  it('does not blame code when the configuration or the input size changed', () => {
    const base = repeat(4, () => ({ minutes: 10, inputGb: 100 }));
    expect(
      runtimeRegression(dailyRuns([...base, { minutes: 15, inputGb: 100, config: 'm5.large x2' }])),
    ).toBeNull();
    expect(runtimeRegression(dailyRuns([...base, { minutes: 15, inputGb: 160 }]))).toBeNull();
    expect(runtimeRegression(dailyRuns([...base, { minutes: 12, inputGb: 100 }]))).toBeNull();
  });
});

describe('spotInterruptions', () => {
  it('counts recent runs that lost spot nodes', () => {
    const insight = spotInterruptions(dailyRuns([{ spotLosses: 2 }, {}, { spotLosses: 1 }, {}]));
    expect(insight?.message).toContain('2 of the last 4 runs');
    expect(insight?.message).toContain('3 in total');
    expect(insight?.runId).toBe('run-2');
    expect(spotInterruptions(dailyRuns([{}, { spotLosses: 0 }]))).toBeNull();
  });
});

describe('repeatedFailures', () => {
  it('flags a streak of failures at the end and ignores an old one', () => {
    expect(
      repeatedFailures(dailyRuns([{}, { status: 'FAILED' }, { status: 'TIMEDOUT' }]))?.message,
    ).toContain('last 2 runs');
    expect(repeatedFailures(dailyRuns([{ status: 'FAILED' }, { status: 'FAILED' }, {}]))).toBeNull();
    expect(repeatedFailures(dailyRuns([{}, { status: 'FAILED' }]))).toBeNull();
  });
});

describe('overProvisioned', () => {
  it('flags low core time in tasks across recent runs, naming the measure', () => {
    expect(
      overProvisioned(dailyRuns([0.2, 0.3, 0.25].map((utilization) => ({ utilization }))))?.message,
    ).toMatch(/^Core time in tasks was only 25% over the last 3 runs \(median\)/);
    expect(overProvisioned(dailyRuns([0.7, 0.3, 0.8].map((utilization) => ({ utilization }))))).toBeNull();
    expect(overProvisioned(dailyRuns([{ utilization: 0.1 }]))).toBeNull();
  });
});

describe('externalConfigChange', () => {
  it('flags a configuration change Setpoint did not make', () => {
    const runs = dailyRuns([{}, {}, { config: 'r5.2xlarge x8' }]);
    expect(externalConfigChange(runs)?.runId).toBe('run-2');
  });

  it('accepts changes that came from a Setpoint recommendation', () => {
    expect(externalConfigChange(dailyRuns([{}, { config: 'r5.2xlarge x8', rec: 'rec-1' }]))).toBeNull();
    expect(externalConfigChange(dailyRuns([{}, {}, {}]))).toBeNull();
  });
});

describe('projectInsights', () => {
  it('lists every insight that applies, most severe first', () => {
    const runs = dailyRuns([
      { utilization: 0.2, spotLosses: 1 },
      { utilization: 0.2 },
      { utilization: 0.2 },
      { status: 'FAILED' },
      { status: 'FAILED' },
    ]);
    const kinds = projectInsights(runs, { now: start + 5 * day, slaMinutes: null }).map(
      (insight) => insight.kind,
    );
    expect(kinds[0]).toBe('repeated_failures');
    expect(kinds).toEqual(expect.arrayContaining(['over_provisioned', 'spot_interruptions']));
    expect(kinds).not.toContain('dormant');
  });
});
