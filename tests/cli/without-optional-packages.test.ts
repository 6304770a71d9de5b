import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { setpointBin } from '../support/run-cli.js';

const hidePackages = fileURLToPath(new URL('../support/without-packages.mjs', import.meta.url));

/** The real binary, with the named packages unresolvable (an install of the product without them). */
function setpointWithout(packages: string[], ...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', hidePackages, setpointBin, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, SETPOINT_TEST_HIDDEN_PACKAGES: packages.join(',') },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const setpointWithoutEmulator = (...args: string[]) =>
  setpointWithout(['@setpoint/databricks-emulator'], ...args);

describe('the product without the emulator package', () => {
  it('starts: version, help and commands that do not simulate work', () => {
    const version = setpointWithoutEmulator('--version');
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
    expect(setpointWithoutEmulator('--help').code).toBe(0);
    const estimate = setpointWithoutEmulator(
      ...'cost photon-breakeven --machine-usd-per-hour 1 --dbu-usd-per-hour 1 --photon-factor 2 --workers 10'.split(
        ' ',
      ),
    );
    expect(estimate.code).toBe(0);
  });

  it('the commands that need it fail with one clear line', () => {
    const emulator = setpointWithoutEmulator('emulator', '--port', '0');
    expect(emulator.code).not.toBe(0);
    expect(emulator.stderr).toContain(
      'the Databricks emulator (@setpoint/databricks-emulator) is not installed',
    );
    expect(emulator.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('the product without the benchmarks package', () => {
  const bench = ['@setpoint/bench'];

  it('`setpoint bench …` fails with one line that says how to get the benchmarks', () => {
    const sweep = setpointWithout(bench, 'bench', 'sweep', '--dataset', 'sweep.csv', '--seeds', '1');
    expect(sweep.code).toBe(8);
    expect(sweep.stdout).toBe('');
    expect(sweep.stderr.trim().split('\n')).toEqual([
      expect.stringContaining('the benchmarks (@setpoint/bench) are not installed'),
    ]);
  });

  it('every other command, and shell completion, still work', () => {
    expect(setpointWithout(bench, '--help').code).toBe(0);
    const completion = setpointWithout(bench, 'completion', 'bash');
    expect(completion.code).toBe(0);
    expect(completion.stdout).toContain('bench');
  });
});
