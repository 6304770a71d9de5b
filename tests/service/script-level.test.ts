import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { runCli } from '../support/run-cli.js';
import type { SpawnedServer } from '../support/spawn-server.js';
import { describeFull } from '../support/tiers.js';
import { apiClient, createKey, deploymentEnv, startApi, startWorker } from './support/process-stack.js';
import { eventually, fixturesDir } from './support/service-harness.js';

// Whole pipelines run in these tests; a busy shared machine can make them slow.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

/**
 * The whole loop through the real binary: key → token → project → upload of a corpus event log with
 * its cluster report → a SUCCESS recommendation with predicted cost and runtime.
 */
function scriptScenario(databaseUrl: () => Promise<string | undefined>, workers: number) {
  const processes: SpawnedServer[] = [];
  afterEach(async () => {
    for (const running of processes.splice(0)) await running.stop();
  });

  it('takes an uploaded event log to a successful recommendation', async () => {
    const env = deploymentEnv(await databaseUrl());
    const key = await createKey(env);
    const api = await startApi(env, workers === 0);
    processes.push(api);
    for (let i = 0; i < workers; i += 1) processes.push(await startWorker(env));
    const client = await apiClient(api.url, key);

    const project = (
      await client.call('POST', '/api/v1/projects', { name: 'nightly-etl', settings: { slaMinutes: 45 } })
    ).json();
    const form = new FormData();
    form.append(
      'eventlog',
      new Blob([readFileSync(path.join(fixturesDir, 'databricks-aws-eventlog'))]),
      'eventlog',
    );
    form.append(
      'cluster_report',
      new Blob([readFileSync(path.join(fixturesDir, 'cluster-report.json'))], { type: 'application/json' }),
      'cluster_report.json',
    );
    form.append('external_run_id', '1001');
    const upload = await client.call('POST', `/api/v1/projects/${project.id}/runs`, form);
    expect(upload.status).toBe(202);

    const rec = await eventually(
      async () => {
        const response = await client.call('GET', `/api/v1/projects/${project.id}/recommendations/latest`);
        return response.status === 200 ? response.json() : undefined;
      },
      60_000,
      'a successful recommendation',
    );
    expect(rec.state).toBe('SUCCESS');
    expect(rec.based_on_run_id).toBe(upload.json().id);
    expect(rec.predicted.cost_usd.mid).toBeGreaterThan(0);
    expect(rec.predicted.runtime_minutes.mid).toBeGreaterThan(0);
    expect(rec.predicted.runtime_minutes.high).toBeLessThanOrEqual(45);
    expect(rec.configuration.num_workers).toBeGreaterThanOrEqual(1);

    const run = (await client.call('GET', `/api/v1/projects/${project.id}/runs/${upload.json().id}`)).json();
    expect(run.cost.total_usd).toBeGreaterThan(0);
    expect(run.profile_summary.applicationId).toBe('local-1726394182053-db');

    const listed = await runCli(['keys', 'list', '--json'], { env });
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: key.id, revokedAt: null })]);
    expect(listed.stdout).not.toContain(key.secret);
    const revoked = await runCli(['keys', 'revoke', key.id], { env });
    expect(revoked.code).toBe(0);
    expect((await client.call('GET', '/api/v1/projects')).status).toBe(401);
  });
}

describe('script-level loop on SQLite (API and worker in one process)', () => {
  scriptScenario(async () => undefined, 0);
});

describeFull('script-level loop on PostgreSQL (API plus two workers sharing the queue)', 'PostgreSQL', () => {
  let database: TestPostgresDatabase | undefined;
  afterEach(async () => {
    await database?.drop();
  });
  scriptScenario(async () => {
    database = await createTestPostgresDatabase();
    return database.url;
  }, 2);
});
