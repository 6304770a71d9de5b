import { spawnSync } from 'node:child_process';
import { fullSuiteEnabled } from './tiers.js';
import { staleWebBundleSources } from './web-bundle.js';

/**
 * CLI tests spawn the real binary, so every package's dist/ must match its src/ before any test runs. tsc still emits
 * when a file has a type error; type errors are reported by `npm run typecheck`, not here. The browser tests (full
 * tier) drive the dashboard's built bundle, so it is rebuilt when a source changed since it was built.
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
    return;
  }
  const stale = staleWebBundleSources();
  if (stale.length === 0) return;
  process.stdout.write(`\nsetpoint: web/dist is older than ${stale.join(', ')}: rebuilding the dashboard\n`);
  const web = spawnSync(
    'node_modules/.bin/vite',
    ['build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'],
    {
      encoding: 'utf8',
    },
  );
  if (web.status !== 0) {
    throw new Error(`setpoint: the dashboard did not build (npm run build:web):\n${web.stdout}${web.stderr}`);
  }
}
