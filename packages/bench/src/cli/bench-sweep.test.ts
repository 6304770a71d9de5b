import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const header =
  'workload,instance_type,nodes,vcpus_per_node,memory_gib_per_node,price_usd_per_node_hour,runtime_s,completed';

function setpoint(args: string[]) {
  const result = spawnSync('node', ['bin/setpoint.js', ...args], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function writeSweep(lines: string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'setpoint-sweep-')), 'sweep.csv');
  writeFileSync(path, `${[header, ...lines].join('\n')}\n`);
  return path;
}

/** Two workloads that scale like Amdahl's law on m and c nodes (each is the other's fleet). */
function tinySweep(): string {
  const lines: string[] = [];
  for (const [workload, serial, work] of [
    ['etl', 60, 20_000],
    ['ml', 120, 50_000],
  ] as const) {
    for (const [type, memory, price] of [
      ['m5.xlarge', 16, 0.192],
      ['c5.xlarge', 8, 0.17],
    ] as const) {
      for (const nodes of [2, 4, 8, 16]) {
        lines.push(`${workload},${type},${nodes},4,${memory},${price},${serial + work / (nodes * 4)},true`);
      }
    }
  }
  return writeSweep(lines);
}

describe('setpoint bench sweep', () => {
  it('prints exactly the documented --json shape', () => {
    const { code, stdout, stderr } = setpoint([
      'bench',
      'sweep',
      '--dataset',
      tinySweep(),
      '--sla',
      '1.0,1.25',
      '--budget',
      '4',
      '--seeds',
      '2',
      '--fleet',
      'dataset',
      '--json',
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(Object.keys(json)).toEqual([
      'dataset',
      'fleet',
      'workloads',
      'coldStarts',
      'perfect',
      'optimizers',
      'goals',
    ]);
    expect(json).toMatchObject({
      dataset: 'sweep.csv',
      fleet: 'dataset (leave-one-workload-out)',
      workloads: 2,
      coldStarts: 16,
    });
    // The goals are stated for SLA 1.1 and a budget of 10: this run has neither.
    expect(json.goals).toEqual([]);
    expect(Object.keys(json.perfect)).toEqual(['1.0', '1.25']);
    expect(Object.keys(json.perfect['1.0'])).toEqual(['medianSaving', 'shareImprovable']);
    expect(Object.keys(json.optimizers)).toEqual(['setpoint', 'gp-ei', 'random', 'stay']);
    const entry = json.optimizers.setpoint['1.25'];
    expect(Object.keys(entry.oneShot)).toEqual([
      'shareCheaper',
      'medianSaving',
      'p25Saving',
      'slaViolationRate',
      'failureRate',
    ]);
    expect(Object.keys(entry.search)).toEqual(['pWithin110', 'pWithin105', 'medianRunsToWithin110']);
    expect(Object.keys(entry.calibration)).toEqual(['first', 'firstMove', 'later']);
    expect(Object.keys(entry.calibration.first)).toEqual(['claims', 'bins', 'intervalCoverage80', 'meanGap']);
    expect(entry.calibration.first.claims).toBe(16);
    expect(entry.search.pWithin110['6']).toBeNull();
    expect(typeof entry.search.pWithin110['3']).toBe('number');
    expect(json.optimizers.stay['1.0'].oneShot.shareCheaper).toBe(0);
  });

  it('prints a table by default', () => {
    const { code, stdout } = setpoint([
      'bench',
      'sweep',
      '--dataset',
      tinySweep(),
      '--sla',
      '1.1',
      '--seeds',
      '1',
      '--fleet',
      'dataset',
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain(
      'sweep.csv: 2 workloads, 16 cold starts; fleet: dataset (leave-one-workload-out)',
    );
    expect(stdout).toMatch(/perfect one-shot/);
    expect(stdout).toMatch(/gp-ei/);
    expect(stdout).toMatch(/Calibration of setpoint's claims/);
    // Budget 10 at SLA 1.1: the goal table is printed, each goal with its measured value.
    expect(stdout).toMatch(/one-shot SLA violations ≤ 5%/);
    expect(stdout).toMatch(/never below gp-ei/);
  });

  it('names the line and column of a bad CSV value', () => {
    const path = writeSweep(['etl,m5.xlarge,4,4,16,0.192,100,true', 'etl,m5.xlarge,4,4,16,0.192,-5,true']);
    const { code, stderr } = setpoint(['bench', 'sweep', '--dataset', path]);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/sweep\.csv:3: column runtime_s must be greater than 0/);
  });

  it('reports the shipped sources a held-out dataset learns from, and refuses unknown ones', () => {
    const { code, stdout } = setpoint([
      'bench',
      'sweep',
      '--dataset',
      tinySweep(),
      '--sla',
      '1.1',
      '--budget',
      '3',
      '--seeds',
      '1',
      '--optimizers',
      'setpoint',
      '--fleet',
      'shipped',
      '--exclude-source',
      'emulator',
      '--cold-starts',
      '2',
      '--json',
    ]);
    expect(code).toBe(0);
    const json = JSON.parse(stdout);
    expect(json.fleet).toBe('shipped (scout, synthetic)');
    expect(json.coldStarts).toBe(4);
    const refused = setpoint(['bench', 'sweep', '--dataset', tinySweep(), '--exclude-source', 'mine']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/unknown shipped source "mine" \(known: scout, synthetic, emulator\)/);
    expect(setpoint(['bench', 'sweep', '--dataset', tinySweep(), '--fleet', 'all']).stderr).toMatch(
      /--fleet expects one of shipped\+dataset, dataset, shipped/,
    );
  });

  it('runs the constrained GP baselines by name, gp-cei-floor at the floor it is given', () => {
    const run = (floor: string) =>
      setpoint([
        'bench',
        'sweep',
        '--dataset',
        tinySweep(),
        '--sla',
        '1.1',
        '--budget',
        '4',
        '--seeds',
        '1',
        '--optimizers',
        'gp-cei,gp-cei-floor',
        '--feasibility-floor',
        floor,
        '--json',
      ]);
    const strict = run('1');
    expect(strict.code).toBe(0);
    const json = JSON.parse(strict.stdout);
    expect(Object.keys(json.optimizers)).toEqual(['gp-cei', 'gp-cei-floor']);
    // A floor of 1 admits no untried configuration: every search stays on its cold start.
    const floor = json.optimizers['gp-cei-floor']['1.1'];
    expect(floor.oneShot.shareCheaper).toBe(0);
    expect(floor.afterFirstRecommendation.slaViolationRate).toBe(0);
    expect(
      setpoint(['bench', 'sweep', '--dataset', tinySweep(), '--feasibility-floor', '1.5']).stderr,
    ).toMatch(/--feasibility-floor expects a number from 0 to 1, got "1.5"/);
  });

  it('rejects unknown optimizers and SLA factors below 1', () => {
    expect(
      setpoint(['bench', 'sweep', '--dataset', tinySweep(), '--optimizers', 'setpoint,magic']).stderr,
    ).toMatch(/unknown optimizer "magic"/);
    expect(setpoint(['bench', 'sweep', '--dataset', tinySweep(), '--sla', '0.9']).stderr).toMatch(
      /--sla expects factors/,
    );
  });

  it('has help with examples', () => {
    const { stdout } = setpoint(['bench', 'sweep', '--help']);
    expect(stdout).toContain('Examples:');
    expect(stdout).toContain('--optimizers');
  });
});
