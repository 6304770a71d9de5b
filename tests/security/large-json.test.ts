/**
 * Issue 40, finding 9: large JSON was parsed on the event loop — a 32 MiB `cluster_report` held
 * `/healthz` 3.4 s, a 64 MB JSON run submission 3.3 s, 3 M tiny tasks 1.3 s. Now JSON bodies are refused
 * by size before they are read whole (1 MiB, 8 MiB for a run submission's cluster report), and any JSON
 * document by its count of values before it is parsed; each refusal is a 413 that names the limit.
 * Over a listening server (the body limits are enforced as the bytes arrive).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixtureFile, multipartBody } from '../service/support/multipart.js';
import { createHarness, fixturesDir, type Harness } from '../service/support/service-harness.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const mib = 2 ** 20;

describe('large JSON bodies and documents', () => {
  let h: Harness;
  let base: string;
  let projectId: string;

  beforeAll(async () => {
    h = await createHarness();
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    projectId = (await h.request('POST', '/api/v1/projects', { name: 'large json' })).json().id;
  });

  afterAll(async () => {
    await h?.close();
  });

  async function post(url: string, body: string | Buffer, contentType: string) {
    const response = await fetch(`${base}${url}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.token}`, 'content-type': contentType },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      error: (JSON.parse(text) as { error?: { code: string; message: string } }).error,
    };
  }

  /** A JSON report of `bytes` bytes: one long string, few values. */
  const bigReport = (bytes: number) => JSON.stringify({ cluster: { note: 'x'.repeat(bytes) } });
  /** A small report of `count` tiny tasks. */
  const manyValues = (count: number) => `{"tasks":[${Array.from({ length: count }, () => '{}').join(',')}]}`;

  it('refuses a JSON run submission larger than its 8 MiB limit with 413, naming the limit', async () => {
    const body = JSON.stringify({
      eventlog_uri: 's3://bucket/log',
      cluster_report: { note: 'x'.repeat(9 * mib) },
    });
    const answer = await post(`/api/v1/projects/${projectId}/runs`, body, 'application/json');
    expect(answer.status).toBe(413);
    expect(answer.error?.code).toBe('BODY_TOO_LARGE');
    expect(answer.error?.message).toMatch(
      /larger than 8\.06 MiB, the most POST \/api\/v1\/projects\/:id\/runs accepts/,
    );
  });

  it('refuses any other JSON body past 1 MiB', async () => {
    const answer = await post(
      '/api/v1/projects',
      JSON.stringify({ name: 'x', description: 'y'.repeat(2 * mib) }),
      'application/json',
    );
    expect(answer.status).toBe(413);
    expect(answer.error?.message).toMatch(/larger than 1 MiB/);
  });

  it('refuses a cluster report past 8 MiB as a file part and as a field, before parsing it', async () => {
    const eventlog = fixtureFile(fixturesDir, 'databricks-aws-eventlog');
    for (const asFile of [true, false]) {
      const body = multipartBody([
        { name: 'eventlog', filename: 'eventlog', content: eventlog },
        {
          name: 'cluster_report',
          ...(asFile ? { filename: 'cluster_report.json', contentType: 'application/json' } : {}),
          content: bigReport(9 * mib),
        },
      ]);
      const answer = await post(
        `/api/v1/projects/${projectId}/runs`,
        body.payload,
        body.headers['content-type'] as string,
      );
      expect(answer.status, asFile ? 'file part' : 'field').toBe(413);
      expect(answer.error?.code).toBe('UPLOAD_FIELD_TOO_LARGE');
      expect(answer.error?.message).toMatch(/cluster_report is larger than 8 MiB/);
    }
    expect((await h.request('GET', `/api/v1/projects/${projectId}/runs`)).json().total).toBe(0);
  });

  it('refuses a document of hundreds of thousands of tiny values by its count, whatever its size', async () => {
    const report = manyValues(300_000);
    expect(report.length).toBeLessThan(mib);
    const body = multipartBody([
      {
        name: 'eventlog',
        filename: 'eventlog',
        content: fixtureFile(fixturesDir, 'databricks-aws-eventlog'),
      },
      {
        name: 'cluster_report',
        filename: 'cluster_report.json',
        contentType: 'application/json',
        content: report,
      },
    ]);
    const asPart = await post(
      `/api/v1/projects/${projectId}/runs`,
      body.payload,
      body.headers['content-type'] as string,
    );
    expect(asPart.status).toBe(413);
    expect(asPart.error?.code).toBe('JSON_TOO_MANY_VALUES');
    const asJson = await post(
      `/api/v1/projects/${projectId}/runs`,
      `{"eventlog_uri":"s3://bucket/log","cluster_report":${report}}`,
      'application/json',
    );
    expect(asJson.status).toBe(413);
    expect(asJson.error?.message).toMatch(/the JSON body holds more than 250,000 values/);
  });

  it('still takes a run with a real cluster report', async () => {
    const body = multipartBody([
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
    ]);
    const answer = await post(
      `/api/v1/projects/${projectId}/runs`,
      body.payload,
      body.headers['content-type'] as string,
    );
    expect(answer.status).toBe(202);
  });
});
