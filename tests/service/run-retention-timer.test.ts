import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from 'setpoint/config/load-config';
import { type RunningServer, startServer } from 'setpoint/server/start-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { recommendationRow, runRow } from '../support/run-rows.js';
import { describeFull } from '../support/tiers.js';
import { apiClient } from './support/process-stack.js';
import { eventually } from './support/service-harness.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const dayMs = 86_400_000;
const analyzed = { profile: '{"stages":[]}', model_profile: '{"stages":[]}', cost: '{"totalUsd":1}' };

/**
 * The retention pass as a running server schedules it: `setpoint serve`'s own start-up with its workers,
 * the interval from SETPOINT_EVENTLOG_PRUNE_INTERVAL_SECONDS, and nothing calling the pass by hand.
 */
function timerSuite(dialect: string, database: () => Promise<TestPostgresDatabase | undefined>) {
  let pg: TestPostgresDatabase | undefined;
  let server: RunningServer;
  let client: Awaited<ReturnType<typeof apiClient>>;

  beforeAll(async () => {
    pg = await database();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-retention-timer-'));
    server = await startServer(
      loadConfig(
        { dataDir, port: 0, ...(pg && { databaseUrl: pg.url }) },
        {
          SETPOINT_LOG_LEVEL: 'silent',
          SETPOINT_EVENTLOG_PRUNE_INTERVAL_SECONDS: '1',
          SETPOINT_RECOMMENDATION_WINDOW_RUNS: '2',
        },
      ),
      { withWorker: true },
    );
    client = await apiClient(server.url, await server.services.apiKeys.create('retention', 'test'));
  });
  // Registered before the server's stop so it runs after it: no pool holds the database when dropped.
  afterAll(async () => {
    await pg?.drop();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it(`${dialect}: the server's timer deletes runs past the retention and unlinks the recommendations based on them`, async () => {
    const projectId = (await client.call('POST', '/api/v1/projects', { name: 'nightly' })).json()
      .id as string;
    const now = Date.now();
    const run = (id: string, daysAgo: number) =>
      runRow({
        id,
        project_id: projectId,
        external_run_id: id,
        pipeline_state: 'DONE',
        created_at: now - daysAgo * dayMs,
        updated_at: now - daysAgo * dayMs,
        ...analyzed,
      });
    const recommendation = (id: string, basedOn: string, daysAgo: number) =>
      recommendationRow({
        id,
        project_id: projectId,
        state: 'SUCCESS',
        configuration: '{"num_workers":2}',
        explanation: 'two workers are enough',
        based_on_run_id: basedOn,
        created_at: now - daysAgo * dayMs,
      });
    // One transaction, so a pass that fires meanwhile sees all of it or none of it.
    await server.store.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('runs')
        .values([run('old-1', 500), run('old-2', 499), run('recent-1', 2), run('recent-2', 1)])
        .execute();
      await trx
        .insertInto('recommendations')
        .values([recommendation('rec-old', 'old-1', 499), recommendation('rec-new', 'recent-2', 1)])
        .execute();
    });

    // The default retention is 400 days and the window 2 runs: both old runs must go, by the timer alone.
    const remaining = await eventually(
      async () => {
        const ids = (
          await server.store.db
            .selectFrom('runs')
            .select('id')
            .where('project_id', '=', projectId)
            .orderBy('id')
            .execute()
        ).map((row) => row.id);
        return ids.length === 2 ? ids : undefined;
      },
      60_000,
      'the retention timer to delete the old runs',
    );
    expect(remaining).toEqual(['recent-1', 'recent-2']);

    const old = (await client.call('GET', `/api/v1/projects/${projectId}/recommendations/rec-old`)).json();
    expect(old.based_on_run_id).toBeNull();
    expect(old.based_on_run_pruned_at).toBeGreaterThanOrEqual(now);
    // Everything else the recommendation holds is still there.
    expect(old.configuration).toEqual({ num_workers: 2 });
    expect(old.explanation).toBe('two workers are enough');
    const newest = (await client.call('GET', `/api/v1/projects/${projectId}/recommendations/rec-new`)).json();
    expect(newest.based_on_run_id).toBe('recent-2');
    expect(newest.based_on_run_pruned_at).toBeNull();

    const trail = (await client.call('GET', '/api/v1/audit?action=runs_pruned')).json().items;
    expect(trail).toHaveLength(1);
    expect(trail[0]).toMatchObject({
      actor: 'retention',
      detail: { deleted_runs: 2, recommendations_unlinked: 1, retention_days: 400 },
    });
  });
}

describe('run retention timer on SQLite', () => {
  timerSuite('SQLite', async () => undefined);
});

describeFull('run retention timer on PostgreSQL', 'PostgreSQL (SETPOINT_TEST_PG_URL)', () => {
  timerSuite('PostgreSQL', createTestPostgresDatabase);
});
