import { spawnSync } from 'node:child_process';
import { fullSuiteEnabled } from './tiers.js';

/**
 * CLI tests spawn the real binary, so every package's dist/ must match its src/ before any test runs. tsc still emits
 * when a file has a type error; type errors are reported by `npm run typecheck`, not here.
 */
export default function setup(): void {
  const build = spawnSync(
    'node_modules/.bin/tsc',
    ['-b', 'packages/setpoint', 'packages/databricks-emulator', 'packages/bench'],
    {
      encoding: 'utf8',
    },
  );
  if (build.status !== 0) {
    process.stderr.write(
      `setpoint: tsc reported problems while building dist/ for the CLI tests:\n${build.stdout}\n`,
    );
  }
  if (!fullSuiteEnabled) {
    process.stdout.write(
      '\nsetpoint: full test tier not enabled — PostgreSQL, Chromium and PyPI suites are skipped (SETPOINT_TEST_FULL=1 enables them)\n\n',
    );
  }
}
