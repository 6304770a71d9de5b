import { S3Client } from '@setpoint/foundation/s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type S3FaultProxy,
  type S3TestServer,
  startS3FaultProxy,
  startS3TestServer,
} from '../support/s3-test-server.js';
import { fixtureFile } from './support/multipart.js';
import { createHarness, eventually, fixturesDir, type Harness } from './support/service-harness.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const eventLog = fixtureFile(fixturesDir, 'databricks-aws-eventlog');
const clusterReport = JSON.parse(fixtureFile(fixturesDir, 'cluster-report.json').toString('utf8'));
const bucket = 'event-logs';
const deniedBucket = 'denied-logs';
/** Job attempts per step: a fault retried by the queue shows up as this many GETs of its object. */
const maxAttempts = 4;

/**
 * Runs submitted with an `s3://` eventlog_uri, read through a proxy that breaks chosen requests: a
 * transfer cut mid-body or stalled is retried, a refusal or a missing object is parked at once with an error
 * naming the object.
 */
describe('eventlog_uri on S3 behind failing requests', () => {
  let s3: S3TestServer;
  let proxy: S3FaultProxy;
  let h: Harness;

  beforeAll(async () => {
    s3 = await startS3TestServer([bucket, deniedBucket]);
    proxy = await startS3FaultProxy(s3.endpoint);
    const writer = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, credentials: s3.credentials });
    for (const key of ['cut/eventlog', 'stalled/eventlog', 'missing/eventlog'])
      await writer.putObject(bucket, key, eventLog);
    await writer.putObject(deniedBucket, 'any/eventlog', eventLog);
    writer.close();
    h = await createHarness({
      startWorkers: true,
      config: {
        s3Endpoint: proxy.endpoint,
        s3AccessKeyId: s3.credentials.accessKeyId,
        s3SecretAccessKey: s3.credentials.secretAccessKey,
        jobMaxAttempts: maxAttempts,
        // short, so the stalled read below ends soon; the test asserts the outcome, not the time
        s3IdleTimeoutSeconds: 3,
      },
    });
  });

  afterAll(async () => {
    await h?.close();
    await proxy?.close();
    await s3?.close();
  });

  async function submit(uri: string) {
    const project = (await h.request('POST', '/api/v1/projects', { name: `s3 ${uri}` })).json();
    const created = await h.request('POST', `/api/v1/projects/${project.id}/runs`, {
      eventlog_uri: uri,
      cluster_report: clusterReport,
    });
    expect(created.status).toBe(202);
    const runId = created.json().id as string;
    return eventually(
      async () => {
        const run = (await h.request('GET', `/api/v1/projects/${project.id}/runs/${runId}`)).json();
        return run.pipeline_state === 'DONE' || run.pipeline_state === 'FAILED' ? run : undefined;
      },
      90_000,
      `run of ${uri}`,
    );
  }

  const gets = (path: string) => proxy.seen.filter((request) => request === `GET ${path}`).length;

  it('retries a download cut mid-body and processes the run', async () => {
    proxy.cutDownloads(/^\/event-logs\/cut\/eventlog$/, 2);
    const run = await submit(`s3://${bucket}/cut/eventlog`);
    expect(run.pipeline_state).toBe('DONE');
    expect(run.eventlog_bytes).toBe(eventLog.length);
    // both cut reads, then at least the one that succeeded (a slow machine may time out one more)
    expect(gets('/event-logs/cut/eventlog')).toBeGreaterThanOrEqual(3);
  });

  it('gives up on a download that stalls mid-body and processes the run on the next read', async () => {
    proxy.stallDownloads(/^\/event-logs\/stalled\/eventlog$/, 1);
    const run = await submit(`s3://${bucket}/stalled/eventlog`);
    expect(run.pipeline_state).toBe('DONE');
    expect(run.eventlog_bytes).toBe(eventLog.length);
    expect(gets('/event-logs/stalled/eventlog')).toBeGreaterThanOrEqual(2);
  });

  it('parks a run whose bucket refuses access at once, naming the object', async () => {
    proxy.answerError(/^\/denied-logs\//, Number.POSITIVE_INFINITY, 403, 'AccessDenied');
    const run = await submit(`s3://${deniedBucket}/any/eventlog`);
    expect(run.pipeline_state).toBe('FAILED');
    expect(run.error).toContain(`s3://${deniedBucket}/any/eventlog`);
    expect(run.error).toContain('access denied');
    expect(run.error).not.toContain(s3.credentials.secretAccessKey);
    // one job attempt: a refusal does not heal by retrying
    expect(gets('/denied-logs/any/eventlog')).toBe(1);
  });

  it('parks a run whose object is missing at once, naming the object', async () => {
    proxy.answerError(/^\/event-logs\/missing\//, Number.POSITIVE_INFINITY, 404, 'NoSuchKey');
    const run = await submit(`s3://${bucket}/missing/eventlog`);
    expect(run.pipeline_state).toBe('FAILED');
    expect(run.error).toContain(`s3://${bucket}/missing/eventlog`);
    expect(run.error).toContain('no such object');
    expect(gets('/event-logs/missing/eventlog')).toBe(1);
  });
});
