import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixedRecommender } from './support/fixed-recommender.js';
import { fixtureFile } from './support/multipart.js';
import { createHarness, eventually, fixturesDir, type Harness } from './support/service-harness.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const eventLog = new Uint8Array(fixtureFile(fixturesDir, 'databricks-aws-eventlog'));
const clusterReport = JSON.parse(fixtureFile(fixturesDir, 'cluster-report.json').toString('utf8'));

/** Upload, then ask for a recommendation at once, with no client-side wait (what syncsparkpy does). */
describe('a recommendation requested while the runs are still processing', () => {
  let h: Harness;
  let base: string;

  async function call(method: string, url: string, payload?: unknown) {
    const response = await fetch(`${base}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${h.token}`,
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

  it('/v1: create submission → upload → create recommendation succeeds without waiting', async () => {
    const project = (await call('POST', '/v1/projects', { name: 'gradient', product_code: 'aws-databricks' }))
      .body.result;
    const submission = await call('POST', `/v1/projects/${project.id}/submissions`, {
      product_code: 'aws-databricks',
      cluster_report: clusterReport,
    });
    const { submission_id: submissionId, upload_details: upload } = submission.body.result;
    const form = new FormData();
    for (const [name, value] of Object.entries(upload.fields as Record<string, string>)) {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: S3's presigned-POST placeholder
      form.append(name, name === 'key' ? value.replace('${filename}', 'eventlog') : value);
    }
    form.append('file', new Blob([eventLog]), 'eventlog');
    expect((await fetch(upload.url, { method: 'POST', body: form })).status).toBe(204);

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
      context: { latest_submission_id: submissionId },
    });
  });

  async function uploadRun(projectId: string, content: Uint8Array<ArrayBuffer>) {
    const form = new FormData();
    form.append('eventlog', new Blob([content]), 'eventlog');
    form.append(
      'cluster_report',
      new Blob([JSON.stringify(clusterReport)], { type: 'application/json' }),
      'r.json',
    );
    const response = await fetch(`${base}/api/v1/projects/${projectId}/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.token}` },
      body: form,
    });
    expect(response.status).toBe(202);
    return ((await response.json()) as { id: string }).id;
  }

  async function settled(projectId: string, recId: string) {
    return eventually(async () => {
      const read = await call('GET', `/api/v1/projects/${projectId}/recommendations/${recId}`);
      return read.body.state === 'PENDING' ? undefined : read.body;
    });
  }

  it('/api/v1: waits for the pending run and is based on it', async () => {
    const projectId = (await call('POST', '/api/v1/projects', { name: 'native' })).body.id as string;
    const runId = await uploadRun(projectId, eventLog);

    const requested = await call('POST', `/api/v1/projects/${projectId}/recommendations`, {});

    expect(requested.status).toBe(202);
    const rec = await settled(projectId, requested.body.id);
    expect(rec).toMatchObject({ state: 'SUCCESS', based_on_run_id: runId });
    const all = (await call('GET', `/api/v1/projects/${projectId}/recommendations`)).body;
    expect(all.total).toBe(1);
  });

  it('fails the waiting recommendation, visibly, when the run it waits for fails', async () => {
    const projectId = (await call('POST', '/api/v1/projects', { name: 'broken' })).body.id as string;
    await uploadRun(projectId, new TextEncoder().encode('this is not a Spark event log\n'));

    const requested = await call('POST', `/api/v1/projects/${projectId}/recommendations`, {});

    expect(requested.status).toBe(202);
    const rec = await settled(projectId, requested.body.id);
    expect(rec.state).toBe('FAILURE');
    expect(rec.error).toMatch(/the run it waited for failed/);
  });

  it('still answers 409 when the project has no run at all', async () => {
    const projectId = (await call('POST', '/api/v1/projects', { name: 'empty' })).body.id as string;
    const requested = await call('POST', `/api/v1/projects/${projectId}/recommendations`, {});
    expect(requested.status).toBe(409);
    expect(requested.body.error.code).toBe('PROJECT_HAS_NO_PROCESSED_RUNS');
  });
});
