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
    globalSetup: ['tests/support/global-setup.ts'],
  },
});
