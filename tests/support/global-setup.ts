import { execFileSync } from 'node:child_process';
import { fullSuiteEnabled } from './tiers.js';

/** CLI tests spawn the real binary, so dist/ must match src/ before any test runs. */
export default function setup(): void {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  if (!fullSuiteEnabled) {
    process.stdout.write(
      '\nsetpoint: full test tier not enabled — PostgreSQL, Chromium and PyPI suites are skipped (SETPOINT_TEST_FULL=1 enables them)\n\n',
    );
  }
}
