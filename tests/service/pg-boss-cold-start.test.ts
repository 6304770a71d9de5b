import { coreJobKinds } from 'setpoint/queue/job-queue';
import { PgBossJobQueue } from 'setpoint/queue/pg-boss-job-queue';
import { expect, it, vi } from 'vitest';
import { createTestPostgresDatabase } from '../support/postgres.js';
import { describeFull } from '../support/tiers.js';

vi.setConfig({ testTimeout: 180_000 });

const policy = { maxAttempts: 3, retryDelaySeconds: 1, leaseSeconds: 30 };

/** An API and two workers starting together on a fresh database (what `serve --no-worker` + 2 workers do). */
describeFull('pg-boss cold start', 'PostgreSQL', () => {
  it('creates the queues once, with no deadlock, when three processes start at the same time', async () => {
    for (let round = 0; round < 3; round += 1) {
      const database = await createTestPostgresDatabase();
      const queues = [0, 1, 2].map(() => new PgBossJobQueue(database.url, policy, coreJobKinds));
      try {
        const started = await Promise.allSettled(queues.map((queue) => queue.start()));
        expect(started.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
        await queues[0]!.enqueue('run.parse', { runId: `run-${round}` });
        const depth = await queues[1]!.depth();
        expect(depth.find((row) => row.kind === 'run.parse' && row.state === 'queued')?.count).toBe(1);
      } finally {
        for (const queue of queues) await queue.stop();
        await database.drop();
      }
    }
  });
});
