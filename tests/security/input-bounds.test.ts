/**
 * Issue 40, Low: `external_run_id`, `status` and the webhook's `run_id` were unbounded or unchecked (a
 * multipart external_run_id was cut to 200 characters, so two different ids could name one run). Each
 * is now checked at the edge and refused with 400 naming its rule. Over the API of the real services.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixtureFile, multipartBody } from '../service/support/multipart.js';
import { createHarness, fixturesDir, type Harness } from '../service/support/service-harness.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const hook = { username: 'setpoint', password: 'hook-password-1' };

describe('bounds on run ids and statuses', () => {
  let h: Harness;
  let projectId: string;

  beforeAll(async () => {
    h = await createHarness();
    projectId = (await h.request('POST', '/api/v1/projects', { name: 'bounds' })).json().id;
  });

  afterAll(async () => {
    await h?.close();
  });

  async function upload(fields: Record<string, string>) {
    const body = multipartBody([
      {
        name: 'eventlog',
        filename: 'eventlog',
        content: fixtureFile(fixturesDir, 'databricks-aws-eventlog'),
      },
      ...Object.entries(fields).map(([name, content]) => ({ name, content })),
    ]);
    const response = await h.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/runs`,
      headers: { ...body.headers, authorization: `Bearer ${h.token}` },
      payload: body.payload,
    });
    return { status: response.statusCode, body: response.json() };
  }

  it('refuses an external_run_id or status past its bounds instead of cutting it', async () => {
    const long = 'r'.repeat(200);
    const refused: Record<string, string>[] = [
      { external_run_id: `${long}-first` },
      { external_run_id: `${long}-second` },
      { external_run_id: 'run\u0000id' },
      { external_run_id: '   ' },
      { external_run_id: 'ok-1', status: 'S'.repeat(51) },
      { external_run_id: 'ok-2', status: 'SUCCESS\r\nX-Injected: 1' },
    ];
    for (const fields of refused) {
      const answer = await upload(fields);
      expect(answer.status, JSON.stringify(fields).slice(0, 60)).toBe(400);
      expect(answer.body.error.code).toBe('UPLOAD_FIELD_INVALID');
    }
    const json = await h.request('POST', `/api/v1/projects/${projectId}/runs`, {
      eventlog_uri: 's3://bucket/log',
      external_run_id: `${long}x`,
    });
    expect(json.status).toBe(400);
    expect((await h.request('GET', `/api/v1/projects/${projectId}/runs`)).json().total).toBe(0);
    expect((await upload({ external_run_id: long, status: 'SUCCESS' })).status).toBe(202);
  });

  it('refuses a Databricks webhook whose run_id is not a Databricks id', async () => {
    const workspace = (
      await h.request('POST', '/api/v1/workspaces', {
        name: 'hooks',
        cloud: 'aws',
        webhook_credentials: hook,
      })
    ).json().id as string;
    const deliver = (run_id: unknown) =>
      h.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/databricks/${workspace}`,
        headers: {
          authorization: `Basic ${Buffer.from(`${hook.username}:${hook.password}`).toString('base64')}`,
          'content-type': 'application/json',
        },
        payload: { event_type: 'jobs.on_success', run: { run_id }, job: { job_id: 1 } },
      });
    for (const runId of ['abc', '1'.repeat(10_000), -1, 1.5, '12; drop table runs']) {
      const answer = await deliver(runId);
      expect(answer.statusCode, String(runId).slice(0, 20)).toBe(400);
    }
    expect((await deliver(881234567)).statusCode).toBe(202);
    expect((await deliver('881234568')).statusCode).toBe(202);
  });
});
