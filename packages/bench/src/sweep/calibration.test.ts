import { describe, expect, it } from 'vitest';
import { calibrationReport } from './calibration.js';

const claim = (probabilityMeetsSla: number) => ({ probabilityMeetsSla, runtimeLowS: 90, runtimeHighS: 110 });

describe('calibrationReport', () => {
  it('bins claims by probability and compares each bin with how often the SLA was met', () => {
    const report = calibrationReport([
      { claim: claim(0.92), metSla: true, insideInterval: true },
      { claim: claim(0.94), metSla: false, insideInterval: false },
      { claim: claim(0.99), metSla: true, insideInterval: true },
      { claim: claim(1), metSla: true, insideInterval: false },
      { claim: claim(0.3), metSla: false, insideInterval: true },
    ]);
    expect(report.claims).toBe(5);
    const byRange = Object.fromEntries(report.bins.map((bin) => [`${bin.from}-${bin.to}`, bin]));
    expect(byRange['0.9-0.95']).toMatchObject({ cases: 2, meanClaimed: 0.93, observed: 0.5 });
    expect(byRange['0.99-1']).toMatchObject({ cases: 2, meanClaimed: 0.995, observed: 1 });
    expect(byRange['0-0.5']).toMatchObject({ cases: 1, observed: 0 });
    expect(byRange['0.8-0.9']).toMatchObject({ cases: 0, meanClaimed: null, observed: null });
    expect(report.intervalCoverage80).toBe(0.6);
    expect(report.meanGap).toBeCloseTo(0.6 - (0.92 + 0.94 + 0.99 + 1 + 0.3) / 5, 4);
  });

  it('reports nothing observed when no claim was made', () => {
    const report = calibrationReport([]);
    expect(report.claims).toBe(0);
    expect(report.intervalCoverage80).toBeNull();
    expect(report.bins.every((bin) => bin.cases === 0)).toBe(true);
  });
});
