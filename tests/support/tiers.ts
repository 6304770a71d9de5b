import { describe } from 'vitest';

/**
 * Test tiers. The default tier needs only Node, Python and Java. The full tier (SETPOINT_TEST_FULL=1,
 * what `.ci/run` enables) adds suites that need PostgreSQL, Chromium or PyPI packages.
 */
export const fullSuiteEnabled = process.env.SETPOINT_TEST_FULL === '1';

/** A describe block that runs only in the full tier, and says so in its name when it does not. */
export function describeFull(name: string, needs: string, body: () => void): void {
  if (fullSuiteEnabled) describe(name, body);
  else describe.skip(`${name} [not enabled: needs ${needs}; run with SETPOINT_TEST_FULL=1]`, body);
}
