import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** Workspace packages resolve to their TypeScript sources (the `setpoint-source` export condition). */
const conditions = ['setpoint-source'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'tests/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Most files wait on servers, browsers, PostgreSQL and child processes rather than compute: at least
    // two at a time, even on a two-core machine (vitest's default leaves one core to itself).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    globalSetup: ['tests/support/global-setup.ts'],
  },
});
