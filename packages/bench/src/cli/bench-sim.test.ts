import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSlaFactor } from './bench-sim.js';

function setpoint(args: string[]) {
  const result = spawnSync('node', ['bin/setpoint.js', ...args], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('setpoint bench sim', () => {
  it('prints the figures as JSON and writes both plots', () => {
    const plots = join(mkdtempSync(join(tmpdir(), 'setpoint-sim-')), 'plots');
    const result = setpoint([
      'bench',
      'sim',
      '--jobs',
      'cpu-bound-ml',
      '--runs',
      '3',
      '--seeds',
      '1',
      '--json',
      '--plots',
      plots,
    ]);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ jobs: 1, runsPerJob: 3, seeds: 1, slaFactor: 1.25 });
    expect(summary).not.toHaveProperty('records');
    expect(summary.prediction).toMatchObject({ runs: 2 });
    // an SLA above the cold start is met by the cold cluster itself: every loop is feasible
    expect(summary.feasibleOnly).toMatchObject({ loops: 1, infeasibleLoops: [] });
    expect(summary.triedPrediction).toEqual([
      expect.objectContaining({ minPriorRuns: 1 }),
      expect.objectContaining({ minPriorRuns: 3 }),
    ]);
    expect(readFileSync(join(plots, 'one-shot-cost-change.svg'), 'utf8')).toContain('<svg');
    expect(existsSync(join(plots, 'prediction-error.svg'))).toBe(true);
  });

  it('names the shipped workloads when asked for an unknown one', () => {
    const result = setpoint(['bench', 'sim', '--jobs', 'no-such-job', '--runs', '2', '--seeds', '1']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/no shipped workload "no-such-job" \(known: .*cpu-bound-ml/);
  });

  it('accepts a tight SLA (a factor below 1) and rejects a factor that is not positive', () => {
    expect(parseSlaFactor('0.7')).toBe(0.7);
    expect(() => parseSlaFactor('0')).toThrow(/--sla expects a positive factor/);
    expect(() => parseSlaFactor('fast')).toThrow(/--sla expects a positive factor/);
  });

  it('rejects a run count below two', () => {
    const result = setpoint(['bench', 'sim', '--runs', '1']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--runs expects a whole number from 2 to 200, got "1"/);
  });
});
