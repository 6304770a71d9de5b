import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { describeFull } from '../support/tiers.js';
import { fixtureFile, multipartBody } from './support/multipart.js';
import { createHarness, eventually, fixturesDir, type Harness } from './support/service-harness.js';

// Whole pipelines run in these tests; a busy shared machine can make them slow.
vi.setConfig({ testTimeout: 150_000, hookTimeout: 150_000 });

/** The REST API on SQLite with the real event-log, cost and baseline recommendation engines. */
function apiSuite(databaseUrl: () => Promise<string | undefined>) {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness({ startWorkers: true, databaseUrl: await databaseUrl() });
  });

  afterAll(async () => {
    await h.close();
  });

  it('creates, reads, updates and deletes a project with validated settings and an audit trail', async () => {
    const created = await h.request('POST', '/api/v1/projects', {
      name: 'nightly-etl',
      job_id: '123',
      cluster_key: 'main',
      settings: { slaMinutes: 30, preference: 'economy' },
    });
    expect(created.status).toBe(201);
    const project = created.json();
    expect(project).toMatchObject({
      name: 'nightly-etl',
      phase: 'PENDING_SETUP',
      settings: { slaMinutes: 30, preference: 'economy', autoApply: false },
    });

    const patched = await h.request('PATCH', `/api/v1/projects/${project.id}`, {
      settings: { autoApply: true },
    });
    expect(patched.json().settings).toMatchObject({ slaMinutes: 30, autoApply: true });

    const invalid = await h.request('PATCH', `/api/v1/projects/${project.id}`, {
      settings: { minWorkers: 9, maxWorkers: 2 },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.json().error.code).toBe('PROJECT_SETTINGS_INVALID');

    const badCron = await h.request('PATCH', `/api/v1/projects/${project.id}`, {
      settings: { optimizationWindow: { cron: 'not a cron', durationMinutes: 60 } },
    });
    expect(badCron.status).toBe(400);

    const audit = await h.request('GET', `/api/v1/projects/${project.id}/audit`);
    expect(audit.json().items.map((entry: { action: string }) => entry.action)).toEqual(['create', 'update']);
    expect(audit.json().items[1].actor).toBe(`api-key:${h.key.id}`);

    expect((await h.request('DELETE', `/api/v1/projects/${project.id}`)).status).toBe(204);
    const gone = await h.request('GET', `/api/v1/projects/${project.id}`);
    expect(gone.status).toBe(404);
    expect(gone.json().error.code).toBe('PROJECT_NOT_FOUND');
  });

  it('filters, sorts and paginates the project list', async () => {
    for (const name of ['list-c', 'list-a', 'list-b', 'other'])
      await h.request('POST', '/api/v1/projects', { name });

    const page1 = (await h.request('GET', '/api/v1/projects?q=list-&sort=name&limit=2')).json();
    const page2 = (await h.request('GET', '/api/v1/projects?q=list-&sort=name&limit=2&offset=2')).json();
    const descending = (await h.request('GET', '/api/v1/projects?q=list-&sort=-name')).json();

    expect(page1.total).toBe(3);
    expect(page1.items.map((p: { name: string }) => p.name)).toEqual(['list-a', 'list-b']);
    expect(page2.items.map((p: { name: string }) => p.name)).toEqual(['list-c']);
    expect(descending.items.map((p: { name: string }) => p.name)).toEqual(['list-c', 'list-b', 'list-a']);
    expect((await h.request('GET', '/api/v1/projects?sort=bogus')).status).toBe(400);
  });

  it('reads a rolled Databricks log uploaded as its parts, under their own names, as one log', async () => {
    const project = (await h.request('POST', '/api/v1/projects', { name: 'rolled' })).json();
    const context = path.resolve(
      'tests/fixtures/eventlog/generated/databricks/0213-181500-abcd1234_10_139_64_5/8880912756278443690',
    );
    const upload = multipartBody(
      ['eventlog-2024-02-13--19-00.gz', 'eventlog'].map((name) => ({
        name: 'eventlog',
        filename: name,
        content: fixtureFile(context, name),
      })),
    );

    const accepted = await h.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${project.id}/runs`,
      headers: { ...upload.headers, authorization: `Bearer ${h.token}` },
      payload: upload.payload,
    });

    expect(accepted.statusCode).toBe(202);
    const run = await eventually(async () => {
      const body = (
        await h.request('GET', `/api/v1/projects/${project.id}/runs/${accepted.json().id}`)
      ).json();
      return body.pipeline_state === 'DONE' || body.pipeline_state === 'FAILED' ? body : undefined;
    });
    expect(run.error).toBeNull();
    expect(run.pipeline_state).toBe('DONE');
    expect(run.profile_summary.platform).toBe('databricks');
  });

  it('finds a project by its exact app id', async () => {
    await h.request('POST', '/api/v1/projects', { name: 'orders nightly', app_id: 'orders' });
    await h.request('POST', '/api/v1/projects', { name: 'orders hourly', app_id: 'orders-hourly' });

    const found = (await h.request('GET', '/api/v1/projects?app_id=orders')).json();

    expect(found.total).toBe(1);
    expect(found.items[0]).toMatchObject({ name: 'orders nightly', app_id: 'orders' });
    expect((await h.request('GET', '/api/v1/projects?app_id=nothing')).json().total).toBe(0);
  });

  it('ingests an uploaded event log with a cluster report through to a successful recommendation', async () => {
    const project = (
      await h.request('POST', '/api/v1/projects', { name: 'upload', settings: { slaMinutes: 60 } })
    ).json();
    const upload = multipartBody([
      {
        name: 'eventlog',
        filename: 'eventlog',
        content: fixtureFile(fixturesDir, 'databricks-aws-eventlog'),
      },
      {
        name: 'cluster_report',
        filename: 'cluster_report.json',
        contentType: 'application/json',
        content: fixtureFile(fixturesDir, 'cluster-report.json'),
      },
      { name: 'external_run_id', content: 'run-1' },
    ]);
    const send = () =>
      h.app.inject({
        method: 'POST',
        url: `/api/v1/projects/${project.id}/runs`,
        headers: { ...upload.headers, authorization: `Bearer ${h.token}` },
        payload: upload.payload,
      });

    const first = await send();
    const again = await send();

    expect(first.statusCode).toBe(202);
    expect(again.statusCode).toBe(200);
    expect(again.json().id).toBe(first.json().id);
    const runId = first.json().id as string;

    const run = await eventually(async () => {
      const body = (await h.request('GET', `/api/v1/projects/${project.id}/runs/${runId}`)).json();
      return body.pipeline_state === 'DONE' || body.pipeline_state === 'FAILED' ? body : undefined;
    });
    expect(run.error).toBeNull();
    expect(run.pipeline_state).toBe('DONE');
    expect(run.status).toBe('SUCCESS');
    expect(run.cluster).toMatchObject({ source: 'cluster_report', nodeTypeId: 'i3.xlarge', workers: 2 });
    expect(run.cost.total_usd).toBeGreaterThan(0);
    expect(run.profile_summary).toMatchObject({ platform: 'databricks', executorsMax: 2 });

    const rec = await eventually(async () => {
      const response = await h.request('GET', `/api/v1/projects/${project.id}/recommendations/latest`);
      return response.status === 200 ? response.json() : undefined;
    });
    expect(rec).toMatchObject({ state: 'SUCCESS', based_on_run_id: runId });
    expect(rec.predicted.cost_usd.mid).toBeGreaterThan(0);
    expect(rec.predicted.runtime_minutes.low).toBeLessThanOrEqual(rec.predicted.runtime_minutes.mid);
    expect(rec.predicted.runtime_minutes.high).toBeLessThanOrEqual(60);
    expect(rec.configuration).toMatchObject({ node_type_id: 'i3.xlarge' });
    // the run is named as a person knows it (when it started), not by its external id
    expect(rec.explanation).toMatch(/the run of \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(rec.explanation).not.toContain('run-1');

    const runs = (await h.request('GET', `/api/v1/projects/${project.id}/runs`)).json();
    expect(runs.total).toBe(1);
    const recs = (await h.request('GET', `/api/v1/projects/${project.id}/recommendations`)).json();
    expect(recs.total).toBe(1);
    expect((await h.request('GET', `/api/v1/projects/${project.id}`)).json().phase).toBe('LEARNING');
  });

  it('creates a recommendation on request and records the intent to apply it', async () => {
    const project = (await h.request('POST', '/api/v1/projects', { name: 'apply' })).json();
    const noRuns = await h.request('POST', `/api/v1/projects/${project.id}/recommendations`, {});
    expect(noRuns.status).toBe(409);

    const upload = multipartBody([
      {
        name: 'eventlog',
        filename: 'eventlog',
        content: fixtureFile(fixturesDir, 'databricks-aws-eventlog'),
      },
      { name: 'cluster_report', content: fixtureFile(fixturesDir, 'cluster-report.json').toString('utf8') },
    ]);
    const posted = await h.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${project.id}/runs`,
      headers: { ...upload.headers, authorization: `Bearer ${h.token}` },
      payload: upload.payload,
    });
    expect(posted.json().external_run_id).toMatch(/^sha256:[0-9a-f]{64}$/);
    await eventually(async () => {
      const body = (await h.request('GET', `/api/v1/projects/${project.id}/runs/${posted.json().id}`)).json();
      return body.pipeline_state === 'DONE' ? body : undefined;
    });

    const requested = await h.request('POST', `/api/v1/projects/${project.id}/recommendations`, {});
    expect(requested.status).toBe(202);
    expect(requested.json().state).toBe('PENDING');
    const rid = requested.json().id as string;
    const done = await eventually(async () => {
      const body = (await h.request('GET', `/api/v1/projects/${project.id}/recommendations/${rid}`)).json();
      return body.state === 'PENDING' ? undefined : body;
    });
    expect(done.state).toBe('SUCCESS');

    const events: unknown[] = [];
    h.services.events.on('recommendation.apply_requested', (event) => events.push(event));
    const applied = await h.request('POST', `/api/v1/projects/${project.id}/recommendations/${rid}/apply`);
    expect(applied.status).toBe(202);
    expect(applied.json().applied).toMatchObject({ requested_by: `api-key:${h.key.id}` });
    expect(events).toEqual([expect.objectContaining({ recommendationId: rid, projectId: project.id })]);
  });

  it('rejects uploads over the size cap and event logs at private addresses', async () => {
    const small = await createHarness({ config: { maxUploadBytes: 1000 } });
    try {
      const project = (await small.request('POST', '/api/v1/projects', { name: 'cap' })).json();
      const upload = multipartBody([{ name: 'eventlog', filename: 'big', content: Buffer.alloc(5000, 65) }]);
      const tooBig = await small.app.inject({
        method: 'POST',
        url: `/api/v1/projects/${project.id}/runs`,
        headers: { ...upload.headers, authorization: `Bearer ${small.token}` },
        payload: upload.payload,
      });
      expect(tooBig.statusCode).toBe(413);
      expect((await small.request('GET', `/api/v1/projects/${project.id}/runs`)).json().total).toBe(0);

      for (const uri of [
        'http://example.com/log',
        'https://127.0.0.1/log',
        'https://[::1]/x',
        'https://169.254.169.254/latest',
        'file:///etc/passwd',
      ]) {
        const response = await small.request('POST', `/api/v1/projects/${project.id}/runs`, {
          eventlog_uri: uri,
        });
        expect(response.status, uri).toBe(400);
      }
    } finally {
      await small.close();
    }
  });

  it('keeps workspace secrets write-only', async () => {
    const created = await h.request('POST', '/api/v1/workspaces', {
      name: 'prod',
      cloud: 'aws',
      region: 'us-east-1',
      host: 'https://dbc-1.cloud.databricks.com',
      plan_type: 'Premium',
      credentials: { token: 'dapi-workspace-secret-1' },
    });
    expect(created.status).toBe(201);
    expect(created.json()).toMatchObject({ has_credentials: true, has_webhook_credentials: false });
    expect(created.body).not.toContain('dapi-workspace-secret-1');
    const id = created.json().id as string;
    expect((await h.services.workspaces.credentials(id)).credentials).toEqual({
      token: 'dapi-workspace-secret-1',
    });

    const cleared = await h.request('PATCH', `/api/v1/workspaces/${id}`, {
      credentials: null,
      webhook_credentials: { password: 'hook-pw' },
    });
    expect(cleared.json()).toMatchObject({ has_credentials: false, has_webhook_credentials: true });
    expect((await h.request('GET', '/api/v1/workspaces')).json().items).toHaveLength(1);
    expect((await h.request('DELETE', `/api/v1/workspaces/${id}`)).status).toBe(204);
  });

  it('exposes Prometheus metrics for queue depth, jobs, API latency and ingested bytes', async () => {
    const response = await h.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${h.token}` },
    });

    expect(response.statusCode).toBe(200);
    expect(response.body).toMatch(
      /setpoint_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/projects"/,
    );
    expect(response.body).toMatch(
      /setpoint_job_duration_seconds_count\{kind="run.parse",outcome="done"\} [1-9]/,
    );
    expect(response.body).toMatch(/setpoint_ingested_bytes_total [1-9]/);
    expect(response.body).toContain('setpoint_queue_jobs');
  });
}

describe('service API on SQLite', () => {
  apiSuite(async () => undefined);
});

describeFull('service API on PostgreSQL', 'PostgreSQL', () => {
  const databases: TestPostgresDatabase[] = [];
  afterAll(async () => {
    for (const database of databases) await database.drop();
  });
  apiSuite(async () => {
    const database = await createTestPostgresDatabase();
    databases.push(database);
    return database.url;
  });
});
