import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixedRecommender } from './support/fixed-recommender.js';
import { fixtureFile } from './support/multipart.js';
import { createHarness, eventually, fixturesDir, type Harness } from './support/service-harness.js';

vi.setConfig({ testTimeout: 150_000, hookTimeout: 150_000 });

const gradientTime = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

/** Sync Computing's client (`syncsparkpy`) as HTTP: the documented shapes, through a listening server. */
describe('Gradient compatibility API (/v1)', () => {
  let h: Harness;
  let base: string;
  let token: string;

  async function call(method: string, url: string, payload?: unknown, auth = token) {
    const response = await fetch(`${base}${url}`, {
      method,
      headers: {
        ...(auth ? { authorization: `Bearer ${auth}` } : {}),
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: payload === undefined ? undefined : JSON.stringify(payload),
    });
    const text = await response.text();
    // biome-ignore lint/suspicious/noExplicitAny: tests read response JSON by path and assert on it
    const body: any = text ? JSON.parse(text) : {};
    return { status: response.status, body };
  }

  beforeAll(async () => {
    h = await createHarness({ startWorkers: true, analysis: { recommender: fixedRecommender } });
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('leaves only the token exchange and the upload URL (token in its fields) without bearer auth', () => {
    const compat = h.app.routeTable.filter((route) => route.url.startsWith('/v1/'));

    expect(compat.filter((route) => route.public).map((route) => `${route.method} ${route.url}`)).toEqual([
      'POST /v1/auth/token',
      'POST /v1/uploads/submissions',
    ]);
    expect(compat.filter((route) => !route.public).length).toBeGreaterThanOrEqual(12);
  });

  it('exchanges an API key for a token in the result envelope, and refuses a wrong secret in the error shape', async () => {
    const exchanged = await call('POST', '/v1/auth/token', {
      api_key_id: h.key.id,
      api_key_secret: h.key.secret,
    });
    const wrong = await call('POST', '/v1/auth/token', { api_key_id: h.key.id, api_key_secret: 'nope' });
    const anonymous = await call('GET', '/v1/projects', undefined, '');

    expect(exchanged.status).toBe(200);
    expect(exchanged.body.result.expires_at_utc).toMatch(gradientTime);
    expect(Date.parse(exchanged.body.result.expires_at_utc)).toBeGreaterThan(Date.now());
    token = exchanged.body.result.access_token;
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
  });

  it('creates, finds by app id, updates and reads projects mapped onto Setpoint projects', async () => {
    const created = await call('POST', '/v1/projects', {
      name: 'orders-etl',
      product_code: 'aws-databricks',
      app_id: 'orders',
      job_id: 123,
      cluster_path: 'job_clusters/main',
      auto_apply_recs: true,
      prediction_params: { sla_minutes: 60 },
    });
    expect(created.status).toBe(200);
    const id = created.body.result.id as string;

    const native = (await h.request('GET', `/api/v1/projects/${id}`)).json();
    const byApp = await call('GET', '/v1/projects?app_id=orders');
    const otherApp = await call('GET', '/v1/projects?app_id=payments');
    const updated = await call('PUT', `/v1/projects/${id}`, {
      description: 'nightly',
      auto_apply_recs: false,
    });
    const read = await call('GET', `/v1/projects/${id}`);
    const template = await call('GET', `/v1/projects/${id}/cluster/template`);

    expect(native).toMatchObject({
      app_id: 'orders',
      job_id: '123',
      cluster_key: 'job_cluster:main',
      settings: { slaMinutes: 60, autoApply: true },
    });
    expect(byApp.body.result.map((project: { id: string }) => project.id)).toEqual([id]);
    expect(otherApp.body).toEqual({ result: [] });
    expect(updated.body.result).toMatchObject({ description: 'nightly', auto_apply_recs: false });
    expect(read.body.result).toMatchObject({
      id,
      name: 'orders-etl',
      cluster_path: 'job_clusters/main',
      prediction_params: { sla_minutes: 60 },
    });
    expect(read.body.result.created_at).toMatch(gradientTime);
    expect(template.body).toEqual({ result: { custom_tags: { 'setpoint:project-id': id } } });
  });

  it("checks a new name on update like a new project's: 400 for anything but 1–200 characters of text", async () => {
    const id = (await call('POST', '/v1/projects', { name: 'renamable', product_code: 'aws-databricks' }))
      .body.result.id as string;
    for (const name of [null, true, [], {}, 42, '', '   ', 'x'.repeat(1_000_000)]) {
      const answer = await call('PUT', `/v1/projects/${id}`, { name });
      expect(answer.status, JSON.stringify(name).slice(0, 20)).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION_FAILED');
    }
    expect((await call('GET', `/v1/projects/${id}`)).body.result.name).toBe('renamable');
    const renamed = await call('PUT', `/v1/projects/${id}`, { name: 'renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.result.name).toBe('renamed');
  });

  it('takes a submission through the presigned-POST upload step, then recommends from it', async () => {
    const project = (await call('POST', '/v1/projects', { name: 'upload', product_code: 'aws-databricks' }))
      .body.result;
    const clusterReport = JSON.parse(fixtureFile(fixturesDir, 'cluster-report.json').toString('utf8'));

    const submission = await call('POST', `/v1/projects/${project.id}/submissions`, {
      product_code: 'aws-databricks',
      cluster_report: clusterReport,
    });
    expect(submission.status).toBe(200);
    const { submission_id: submissionId, upload_details: upload } = submission.body.result;
    expect(upload.url).toBe(`${base}/v1/uploads/submissions`);
    expect(upload.fields.key).toMatch(/\/\$\{filename\}$/);

    // What syncsparkpy does: every field, `key` with the file name, the zip in a part named `file`.
    const form = new FormData();
    for (const [name, value] of Object.entries(upload.fields as Record<string, string>)) {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: S3's presigned-POST placeholder
      form.append(name, name === 'key' ? value.replace('${filename}', 'eventlog.zip') : value);
    }
    const zip = zipSync({ eventlog: fixtureFile(fixturesDir, 'databricks-aws-eventlog') });
    form.append('file', new Blob([zip]), 'eventlog.zip');
    const uploaded = await fetch(upload.url, { method: 'POST', body: form });
    expect(uploaded.status).toBe(204);

    const done = await eventually(async () => {
      const read = await call('GET', `/v1/projects/${project.id}/submissions/${submissionId}`);
      return read.body.result?.state === 'PENDING' ? undefined : read.body.result;
    });
    expect(done).toMatchObject({ id: submissionId, project_id: project.id, state: 'SUCCESS', error: null });
    const paged = await call('GET', `/v1/projects/${project.id}/paged/submissions`);
    expect(paged.body).toEqual({ items: [expect.objectContaining({ id: submissionId, state: 'SUCCESS' })] });

    const requested = await call('POST', `/v1/projects/${project.id}/recommendations`, {});
    expect(requested.status).toBe(200);
    const recId = requested.body.result.id as string;
    const rec = await eventually(async () => {
      const read = await call('GET', `/v1/projects/${project.id}/recommendations/${recId}`);
      return read.body.result?.state === 'PENDING' ? undefined : read.body.result;
    });
    expect(rec).toMatchObject({
      id: recId,
      state: 'SUCCESS',
      recommendation: {
        metrics: {
          spark_duration_minutes: 10,
          spark_cost_lower_usd: 1.5,
          spark_cost_midpoint_usd: 2,
          spark_cost_upper_usd: 2.5,
        },
        configuration: { node_type_id: 'm6i.xlarge', num_workers: 3 },
      },
      context: { latest_submission_id: submissionId },
    });
    const latest = await call('GET', `/v1/projects/${project.id}/recommendations?page=0&per_page=1`);
    expect(latest.body.result.map((item: { id: string }) => item.id)).toEqual([recId]);
    expect((await call('GET', `/v1/projects/${project.id}/recommendations/latest`)).body.result.id).toBe(
      recId,
    );
  });

  it('refuses an upload whose token is not valid', async () => {
    const form = new FormData();
    form.append('key', 'prj_x/sub_x/eventlog.zip');
    form.append('x-setpoint-token', 'forged');
    form.append('file', new Blob(['x']), 'eventlog.zip');

    const response = await fetch(`${base}/v1/uploads/submissions`, { method: 'POST', body: form });

    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
  });

  it('answers unknown projects and bad bodies in the reference error shape', async () => {
    const missing = await call('GET', '/v1/projects/prj_missing');
    const invalid = await call('POST', '/v1/projects', { product_code: 'aws-databricks' });
    const noSubmission = await call('GET', '/v1/projects/prj_missing/submissions/sub_x');

    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      error: { code: 'PROJECT_NOT_FOUND', message: 'project prj_missing does not exist' },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: [expect.stringMatching(/name/)],
    });
    expect(noSubmission.status).toBe(404);
  });
});
