import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { setpointBin } from '../support/run-cli.js';

const hideEmulator = fileURLToPath(new URL('../support/without-emulator.mjs', import.meta.url));

/** The real binary, with @setpoint/databricks-emulator unresolvable (an install of the product without it). */
function setpointWithoutEmulator(...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', hideEmulator, setpointBin, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

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
