import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixtureFile } from '../service/support/multipart.js';
import { createHarness, eventually, fixturesDir, type Harness } from '../service/support/service-harness.js';
import { setpointBin } from '../support/run-cli.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const clusterReport = fixtureFile(fixturesDir, 'cluster-report.json').toString('utf8');

/** Headers, cookies, file modes, bad bodies and slow clients, over a listening server. */
describe('HTTP hygiene', () => {
  let h: Harness;
  let base: string;

  beforeAll(async () => {
    h = await createHarness({
      startWorkers: true,
      config: { secureCookies: true, requestTimeoutSeconds: 1, idleTimeoutSeconds: 2 },
    });
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    await h.services.users.create('ana', 'correct horse battery', 'admin');
  });

  afterAll(async () => {
    await h?.close();
  });

  const authorized = { authorization: () => `Bearer ${h.token}` };

  it('sends CSP, X-Frame-Options and nosniff on API, health and dashboard responses', async () => {
    for (const url of ['/healthz', '/api/v1/projects', '/']) {
      const response = await fetch(`${base}${url}`, {
        headers: { authorization: authorized.authorization() },
      });
      expect(response.headers.get('content-security-policy'), url).toMatch(/frame-ancestors 'none'/);
      expect(response.headers.get('x-frame-options'), url).toBe('DENY');
      expect(response.headers.get('x-content-type-options'), url).toBe('nosniff');
    }
  });

  it('marks session cookies Secure when told to', async () => {
    const response = await fetch(`${base}/api/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'ana', password: 'correct horse battery' }),
    });
    expect(response.status).toBe(200);
    const cookies = response.headers.getSetCookie();
    expect(cookies.length).toBeGreaterThan(1);
    for (const cookie of cookies) expect(cookie).toMatch(/;\s*Secure/i);
  });

  it('keeps the SQLite database readable by its owner only', () => {
    expect(statSync(path.join(h.dataDir, 'setpoint.db')).mode & 0o777).toBe(0o600);
  });

  it('keeps uploaded event logs readable by their owner only (files 0600, directories 0700)', async () => {
    const id = (await h.request('POST', '/api/v1/projects', { name: 'private logs' })).json().id as string;
    const form = new FormData();
    form.append(
      'eventlog',
      new Blob([new Uint8Array(fixtureFile(fixturesDir, 'databricks-aws-eventlog'))]),
      'eventlog',
    );
    form.append('external_run_id', 'private-1');
    const response = await fetch(`${base}/api/v1/projects/${id}/runs`, {
      method: 'POST',
      headers: { authorization: authorized.authorization() },
      body: form,
    });
    expect(response.status).toBe(202);
    const run = (await response.json()) as { id: string };
    const bundle = (
      await h.services.store.db
        .selectFrom('runs')
        .select('eventlog_blob_key')
        .where('id', '=', run.id)
        .executeTakeFirstOrThrow()
    ).eventlog_blob_key as string;
    const directory = path.join(h.dataDir, 'blobs', bundle);
    expect(statSync(path.join(directory, 'eventlog')).mode & 0o777).toBe(0o600);
    expect(statSync(directory).mode & 0o777).toBe(0o700);
  });

  async function projectId(): Promise<string> {
    return (await h.request('POST', '/api/v1/projects', { name: `p-${Math.random()}` })).json().id;
  }

  it('answers a malformed multipart body with 400, not 500', async () => {
    const id = await projectId();
    for (const body of [
      '--abc\r\nContent-Disposition: form-data; name="eventlog"; filename="e"\r\n\r\nxyz',
      '--abc\r\nbroken header\r\n\r\n--abc--',
    ]) {
      const response = await fetch(`${base}/api/v1/projects/${id}/runs`, {
        method: 'POST',
        headers: {
          authorization: authorized.authorization(),
          'content-type': 'multipart/form-data; boundary=abc',
        },
        body,
      });
      expect(response.status, body).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toMatch(/^UPLOAD_/);
    }
  });

  it('refuses JSON nested 100,000 deep with 400, in a JSON body and in a multipart part', async () => {
    const id = await projectId();
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const json = await fetch(`${base}/api/v1/projects/${id}/runs`, {
      method: 'POST',
      headers: { authorization: authorized.authorization(), 'content-type': 'application/json' },
      body: `{"eventlog_uri":"s3://b/k","cluster_report":${deep}}`,
    });
    expect(json.status).toBe(400);
    expect(((await json.json()) as { error: { code: string } }).error.code).toBe('JSON_TOO_DEEP');

    const form = new FormData();
    form.append('eventlog', new Blob(['{}\n']), 'eventlog');
    form.append('cluster_report', new Blob([deep], { type: 'application/json' }), 'report.json');
    const multipart = await fetch(`${base}/api/v1/projects/${id}/runs`, {
      method: 'POST',
      headers: { authorization: authorized.authorization() },
      body: form,
    });
    expect(multipart.status).toBe(400);
    expect(((await multipart.json()) as { error: { code: string } }).error.code).toBe('JSON_TOO_DEEP');
  });

  it('names no server path in the error of a run that failed', async () => {
    const id = await projectId();
    const form = new FormData();
    form.append('eventlog', new Blob(['this is not an event log\n']), 'eventlog');
    form.append('cluster_report', new Blob([clusterReport], { type: 'application/json' }), 'r.json');
    const response = await fetch(`${base}/api/v1/projects/${id}/runs`, {
      method: 'POST',
      headers: { authorization: authorized.authorization() },
      body: form,
    });
    const runId = ((await response.json()) as { id: string }).id;
    const run = await eventually(async () => {
      const body = (await h.request('GET', `/api/v1/projects/${id}/runs/${runId}`)).json();
      return body.pipeline_state === 'FAILED' || body.pipeline_state === 'DONE' ? body : undefined;
    });
    expect(run.pipeline_state).toBe('FAILED');
    expect(run.error).not.toContain(h.dataDir);
    expect(run.error).not.toMatch(/\/(tmp|home|var|root)\//);
  });

  it('closes a connection whose body never finishes', async () => {
    const started = Date.now();
    const closed = await new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(base).port), '127.0.0.1', () => {
        socket.write(
          `POST /api/v1/projects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.token}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"na',
        );
      });
      let answer = '';
      socket.on('data', (chunk) => {
        answer += chunk.toString('utf8');
      });
      socket.on('close', () => resolve(answer));
      socket.on('error', () => resolve(answer));
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(closed === '' || /^HTTP\/1\.1 408/.test(closed)).toBe(true);
  });

  it('closes a client that drips its body a byte a second, long before the 30 s default deadline check', async () => {
    // the drip keeps the socket from ever being idle: only the request deadline (1 s here) can end it
    const answer = await new Promise<string>((resolve) => {
      let received = '';
      const socket = connect(Number(new URL(base).port), '127.0.0.1', () => {
        socket.write(
          `POST /api/v1/projects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.token}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"name":"',
        );
      });
      const drip = setInterval(() => socket.write('x'), 1000);
      const giveUp = setTimeout(() => socket.destroy(), 20_000);
      socket.on('data', (chunk) => {
        received += chunk.toString('utf8');
      });
      socket.on('close', () => {
        clearInterval(drip);
        clearTimeout(giveUp);
        resolve(received);
      });
      socket.on('error', () => undefined);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it('exits quietly when the reader of its output goes away (setpoint --help | head -1)', async () => {
    const child = spawn(process.execPath, [setpointBin, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(stderr).not.toMatch(/EPIPE|Error/);
    expect(code).toBe(0);
  });
});
