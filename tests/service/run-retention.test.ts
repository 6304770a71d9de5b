import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRepositories } from 'setpoint/service/repositories';
import { pruneRuns, type RunRetentionDeps } from 'setpoint/service/runs/run-retention';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { recommendationRow, runRow } from '../support/run-rows.js';
import { describeFull } from '../support/tiers.js';
import { createHarness, type Harness } from './support/service-harness.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const dayMs = 86_400_000;
const now = Date.UTC(2026, 10, 24);
const daysAgo = (days: number) => now - days * dayMs;
const windowRuns = 3;
const analyzed = { profile: '{"stages":[]}', model_profile: '{"stages":[]}', cost: '{"totalUsd":1}' };

function retentionSuite(dialect: string, database: () => Promise<TestPostgresDatabase | undefined>) {
  let h: Harness;
  let pg: TestPostgresDatabase | undefined;
  let deps: RunRetentionDeps;
  const logDir = mkdtempSync(path.join(tmpdir(), 'setpoint-run-retention-'));
  /** A small event log to store (the blob store moves the file in). */
  const logFile = (name: string) => {
    const file = path.join(logDir, name);
    writeFileSync(file, '{"Event":"SparkListenerLogStart"}\n');
    return file;
  };

  beforeAll(async () => {
    pg = await database();
    h = await createHarness(pg ? { databaseUrl: pg.url } : {});
    const repositories = createRepositories(h.services.store.db);
    deps = {
      retention: repositories.runRetention,
      runs: repositories.runs,
      learningSummaries: repositories.learningSummaries,
      blobs: h.services.blobs,
      audit: repositories.audit,
      windowRuns,
    };
  });
  // Registered before the harness's teardown so it runs after it: no pool holds the database when dropped.
  afterAll(async () => {
    await pg?.drop();
  });
  afterAll(async () => {
    await h?.close();
  });

  const db = () => h.services.store.db;
  const project = async (name: string) =>
    (await h.request('POST', '/api/v1/projects', { name })).json().id as string;
  const run = (projectId: string, id: string, createdAt: number, fields: Record<string, unknown> = {}) =>
    runRow({
      id,
      project_id: projectId,
      external_run_id: id,
      pipeline_state: 'DONE',
      created_at: createdAt,
      updated_at: createdAt,
      ...fields,
    });
  const recommendation = (projectId: string, id: string, basedOn: string, state: string, createdAt: number) =>
    recommendationRow({ id, project_id: projectId, state, based_on_run_id: basedOn, created_at: createdAt });
  const remaining = async (projectId: string) =>
    (
      await db()
        .selectFrom('runs')
        .select('id')
        .where('project_id', '=', projectId)
        .orderBy('created_at')
        .execute()
    ).map((row) => row.id);

  it(`${dialect}: deletes old runs and their event logs, never those a model or recommendation reads`, async () => {
    const steady = await project('steady');
    const reset = await project('reset');
    const pending = await project('pending');
    const rows = [
      // steady: eight analyzed runs 100–93 days old, a failed one, and one still being processed.
      ...Array.from({ length: 8 }, (_, i) => run(steady, `s${i + 1}`, daysAgo(100 - i), analyzed)),
      run(steady, 's-failed', daysAgo(99), { pipeline_state: 'FAILED', error: 'no event log' }),
      run(steady, 's-parsing', daysAgo(98), { pipeline_state: 'PARSING' }),
      // reset: learning reset 50 days ago; one run before it, two after (both old).
      run(reset, 'r-before', daysAgo(100), analyzed),
      run(reset, 'r-after-1', daysAgo(40), analyzed),
      run(reset, 'r-after-2', daysAgo(35), analyzed),
      run(reset, 'r-recent', daysAgo(1), analyzed),
      // pending: a recommendation is still being made; nothing of it goes.
      ...Array.from({ length: 5 }, (_, i) => run(pending, `p${i + 1}`, daysAgo(100 - i), analyzed)),
    ];
    await db().insertInto('runs').values(rows).execute();
    await db()
      .updateTable('projects')
      .set({ learning_reset_at: daysAgo(50) })
      .where('id', '=', reset)
      .execute();
    await db()
      .insertInto('recommendations')
      .values([
        // An older recommendation whose run leaves every window: it loses the run's id, nothing else.
        { ...recommendation(steady, 'rec-s-first', 's1', 'SUCCESS', daysAgo(99)), explanation: 'first' },
        recommendation(steady, 'rec-s-old', 's7', 'SUCCESS', daysAgo(94)),
        // The newest recommendation is anchored on an older run (a backlog being worked through).
        recommendation(steady, 'rec-s-new', 's2', 'SUCCESS', daysAgo(92)),
        recommendation(pending, 'rec-p', 'p5', 'PENDING', daysAgo(95)),
      ])
      .execute();
    await h.services.blobs.putFile('eventlogs/s1', 'events.json', logFile('s1.json'));
    await h.services.blobs.putFile('eventlogs/s7', 'events.json', logFile('s7.json'));
    await db()
      .updateTable('runs')
      .set({ eventlog_blob_key: 'eventlogs/s1' })
      .where('id', '=', 's1')
      .execute();
    await db()
      .updateTable('runs')
      .set({ eventlog_blob_key: 'eventlogs/s7' })
      .where('id', '=', 's7')
      .execute();
    const windowOf = async (projectId: string, since: number) =>
      (await deps.runs.analyzedWindow(projectId, { since, limit: windowRuns })).map((row) => row.id);
    const before = { steady: await windowOf(steady, 0), reset: await windowOf(reset, daysAgo(50)) };

    // Off: nothing goes, whatever the age.
    expect(await pruneRuns(deps, 0, now)).toEqual({
      deleted: 0,
      eventLogsDeleted: 0,
      kept: 0,
      recommendationsUnlinked: 0,
    });
    expect(await remaining(steady)).toHaveLength(10);

    const result = await pruneRuns(deps, 30, now);

    // steady: its window (s6–s8) and the newest recommendation's run (s2) stay, and the run in progress.
    expect(await remaining(steady)).toEqual(['s2', 's-parsing', 's6', 's7', 's8']);
    // reset: the run from before the reset has left every window; the window since it stays.
    expect(await remaining(reset)).toEqual(['r-after-1', 'r-after-2', 'r-recent']);
    expect(await remaining(pending)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
    expect(result).toEqual({ deleted: 6, eventLogsDeleted: 1, kept: 11, recommendationsUnlinked: 1 });
    // No recommendation names a run that is gone: the API says when its run was pruned instead.
    const recommendationOf = async (projectId: string, id: string) =>
      (await h.request('GET', `/api/v1/projects/${projectId}/recommendations/${id}`)).json();
    const first = await recommendationOf(steady, 'rec-s-first');
    expect(first).toMatchObject({
      based_on_run_id: null,
      based_on_run_pruned_at: now,
      explanation: 'first',
      state: 'SUCCESS',
    });
    for (const [projectId, id, run] of [
      [steady, 'rec-s-old', 's7'],
      [steady, 'rec-s-new', 's2'],
      [pending, 'rec-p', 'p5'],
    ] as const)
      expect(await recommendationOf(projectId, id)).toMatchObject({
        based_on_run_id: run,
        based_on_run_pruned_at: null,
      });
    const dangling = await db()
      .selectFrom('recommendations')
      .leftJoin('runs', 'runs.id', 'recommendations.based_on_run_id')
      .select('recommendations.id')
      .where('recommendations.based_on_run_id', 'is not', null)
      .where('runs.id', 'is', null)
      .execute();
    expect(dangling).toEqual([]);
    // What the recommender reads is the same as before the pass.
    expect(await windowOf(steady, 0)).toEqual(before.steady);
    expect(await windowOf(reset, daysAgo(50))).toEqual(before.reset);
    const blobs = path.join(h.dataDir, 'blobs');
    expect(existsSync(path.join(blobs, 'eventlogs/s1'))).toBe(false);
    expect(existsSync(path.join(blobs, 'eventlogs/s7'))).toBe(true);

    const trail = await db()
      .selectFrom('audit_log')
      .select(['entity', 'entity_id', 'actor', 'detail'])
      .where('action', '=', 'runs_pruned')
      .execute();
    expect(trail).toHaveLength(1);
    expect(trail[0]).toMatchObject({
      entity: 'organization',
      entity_id: 'run_retention',
      actor: 'retention',
    });
    expect(JSON.parse(trail[0]?.detail ?? '{}')).toEqual({
      deleted_runs: 6,
      deleted_event_logs: 1,
      kept_for_learning: 11,
      recommendations_unlinked: 1,
      retention_days: 30,
      created_before: daysAgo(30),
    });

    // A second pass finds nothing more and writes no audit entry.
    expect((await pruneRuns(deps, 30, now)).deleted).toBe(0);
    expect(
      await db().selectFrom('audit_log').select('id').where('action', '=', 'runs_pruned').execute(),
    ).toHaveLength(1);
  });

  it(`${dialect}: the setting is an organization setting, 400 days unless changed, 0 to keep every run`, async () => {
    const settings = await h.request('GET', '/api/v1/organization/settings');
    expect(settings.json().run_retention_days).toBe(400);
    const off = await h.request('PATCH', '/api/v1/organization/settings', { run_retention_days: 0 });
    expect(off.status).toBe(200);
    expect(off.json().run_retention_days).toBe(0);
    const bad = await h.request('PATCH', '/api/v1/organization/settings', { run_retention_days: -1 });
    expect(bad.status).toBe(400);
    expect(bad.json().error.message).toMatch(/run_retention_days/);
  });
}

describe('run retention on SQLite', () => {
  retentionSuite('SQLite', async () => undefined);
});

describeFull('run retention on PostgreSQL', 'PostgreSQL (SETPOINT_TEST_PG_URL)', () => {
  retentionSuite('PostgreSQL', createTestPostgresDatabase);
});
