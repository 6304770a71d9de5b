import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixtureFile } from './support/multipart.js';
import { createHarness, eventually, fixturesDir, type Harness } from './support/service-harness.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const eventLog = new Uint8Array(fixtureFile(fixturesDir, 'databricks-aws-eventlog'));
const clusterReport = new Uint8Array(fixtureFile(fixturesDir, 'cluster-report.json'));
const maxUploadBytes = 400_000;

/** Whole-request upload limits, deletes that free storage, and the orphan sweep, over HTTP. */
describe('upload limits and storage hygiene', () => {
  let h: Harness;
  let base: string;

  beforeAll(async () => {
    h = await createHarness({
      startWorkers: true,
      config: { maxUploadBytes, maxUploadFiles: 3, maxDecompressedBytes: 3 * eventLog.length },
    });
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  });

  afterAll(async () => {
    await h?.close();
  });

  const blobRuns = () => readdirSync(path.join(h.dataDir, 'blobs', 'runs'), { withFileTypes: true });
  const storedRuns = () => (existsSync(path.join(h.dataDir, 'blobs', 'runs')) ? blobRuns().length : 0);
  const scratch = () =>
    existsSync(path.join(h.dataDir, 'tmp')) ? readdirSync(path.join(h.dataDir, 'tmp')).length : 0;

  async function project(name: string): Promise<string> {
    return (await h.request('POST', '/api/v1/projects', { name })).json().id;
  }

  async function upload(projectId: string, form: FormData) {
    const response = await fetch(`${base}/api/v1/projects/${projectId}/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.token}` },
      body: form,
    });
    // biome-ignore lint/suspicious/noExplicitAny: tests read response JSON by path and assert on it
    return { status: response.status, body: (await response.json()) as any };
  }

  it('caps the stored total of a request across parts and zip entries, not per part', async () => {
    const id = await project('bombs');
    const before = storedRuns();
    const form = new FormData();
    // Each zip is tiny and expands to 60% of the limit: one passes, three together must not.
    for (let i = 0; i < 3; i += 1) {
      const zip = zipSync({ [`eventlog-${i}`]: new Uint8Array(0.6 * maxUploadBytes).fill(10) });
      form.append('eventlog', new Blob([zip]), `part-${i}.zip`);
    }
    const response = await upload(id, form);

    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('UPLOAD_TOO_LARGE');
    expect(storedRuns()).toBe(before);
    expect(scratch()).toBe(0);
  });

  it('refuses more file parts than the limit with a 4xx, storing nothing', async () => {
    const id = await project('many-parts');
    const before = storedRuns();
    const form = new FormData();
    for (let i = 0; i < 5; i += 1) form.append('eventlog', new Blob(['{}\n']), `eventlog-${i}`);
    const response = await upload(id, form);

    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(response.body.error.code).toMatch(/UPLOAD_TOO_MANY_FILES|FST_FILES_LIMIT/);
    expect(storedRuns()).toBe(before);
  });

  it('refuses two "file" parts on the /v1 presigned upload', async () => {
    const projectId = await project('gradient-two-files');
    const form = new FormData();
    form.append('key', `${projectId}/sub_1/eventlog`);
    form.append('x-setpoint-token', h.token);
    form.append('file', new Blob([eventLog]), 'eventlog');
    form.append('file', new Blob([eventLog]), 'eventlog');
    const response = await fetch(`${base}/v1/uploads/submissions`, { method: 'POST', body: form });

    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('UPLOAD_TOO_MANY_FILES');
  });

  it('fails a run whose event log decompresses past the per-run limit, visibly', async () => {
    const id = await project('decompression');
    const form = new FormData();
    const repeated = new Uint8Array(Buffer.concat([eventLog, eventLog, eventLog, eventLog]));
    form.append('eventlog', new Blob([gzipSync(repeated)]), 'eventlog.gz');
    form.append('cluster_report', new Blob([clusterReport], { type: 'application/json' }), 'report.json');
    const response = await upload(id, form);
    expect(response.status).toBe(202);

    const run = await eventually(async () => {
      const body = (await h.request('GET', `/api/v1/projects/${id}/runs/${response.body.id}`)).json();
      return body.pipeline_state === 'FAILED' || body.pipeline_state === 'DONE' ? body : undefined;
    });
    expect(run.pipeline_state).toBe('FAILED');
    expect(run.error).toMatch(/maxDecompressedBytes|decompress/i);
  });

  it('deletes a project’s event logs with the project', async () => {
    const id = await project('deleted');
    const form = new FormData();
    form.append('eventlog', new Blob([eventLog]), 'eventlog');
    form.append('cluster_report', new Blob([clusterReport], { type: 'application/json' }), 'report.json');
    const response = await upload(id, form);
    expect(response.status).toBe(202);
    const bundle = path.join(h.dataDir, 'blobs', 'runs', response.body.id);
    expect(existsSync(bundle)).toBe(true);

    expect((await h.request('DELETE', `/api/v1/projects/${id}`)).status).toBe(204);
    expect(existsSync(bundle)).toBe(false);
  });

  it('sweeps bundles no run points to and stale scratch entries, keeping live ones', async () => {
    const id = await project('live');
    const form = new FormData();
    form.append('eventlog', new Blob([eventLog]), 'eventlog');
    const live = await upload(id, form);
    expect(live.status).toBe(202);

    const orphan = path.join(h.dataDir, 'blobs', 'runs', 'run_crashed', 'eventlog');
    mkdirSync(orphan, { recursive: true });
    writeFileSync(path.join(orphan, 'eventlog'), 'left by a crash');
    const staleScratch = path.join(h.dataDir, 'tmp', 'upload-crashed');
    mkdirSync(staleScratch, { recursive: true });
    const freshScratch = path.join(h.dataDir, 'tmp', 'upload-in-flight');
    mkdirSync(freshScratch, { recursive: true });
    const hourAgo = new Date(Date.now() - 3_600_000);
    const liveBundle = path.join(h.dataDir, 'blobs', 'runs', live.body.id, 'eventlog');
    for (const entry of [orphan, staleScratch, liveBundle]) utimesSync(entry, hourAgo, hourAgo);

    const swept = await h.services.pipeline.sweepOrphans(30 * 60_000);

    expect(swept).toEqual({ bundles: 1, scratch: 1 });
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(staleScratch)).toBe(false);
    expect(existsSync(freshScratch)).toBe(true);
    expect(existsSync(liveBundle)).toBe(true);
  });
});
