import { createJob } from '@setpoint/databricks-emulator/server/jobs-routes';
import type { JobSettings } from '@setpoint/databricks-emulator/server/schema';
import { shippedJobSettings } from '@setpoint/databricks-emulator/server/shipped-jobs';
import { S3Client } from '@setpoint/foundation/s3';
import { probeS3LogDestination } from 'setpoint/platforms/databricks/collect/log-store-s3';
import { checkWorkspaceAccess } from 'setpoint/platforms/databricks/connection/access-check';
import { databricksIntegrationOf } from 'setpoint/platforms/databricks/databricks-platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type S3FaultProxy,
  type S3TestServer,
  startS3FaultProxy,
  startS3TestServer,
} from '../support/s3-test-server.js';
import { eventually, type Harness, processedRun, startHarness } from './integration-harness.js';

const bucket = 'cluster-logs';
const logDestination = `s3://${bucket}/setpoint`;

/** A copy of a shipped job whose cluster has no log delivery yet, so onboarding points it at S3. */
function jobWithoutLogConf(template: string, name: string): JobSettings {
  const settings = structuredClone(shippedJobSettings().find((job) => job.name === template));
  if (!settings) throw new Error(`no shipped job ${template}`);
  for (const task of settings.tasks ?? []) if (task.new_cluster) delete task.new_cluster.cluster_log_conf;
  return { ...settings, name };
}

describe('cluster logs delivered to S3', () => {
  let s3: S3TestServer;
  let proxy: S3FaultProxy;
  let h: Harness;
  let reader: S3Client;

  beforeAll(async () => {
    s3 = await startS3TestServer([bucket]);
    proxy = await startS3FaultProxy(s3.endpoint);
    h = await startHarness({
      seed: 21,
      s3: {
        logDestination,
        deliveryEndpoint: s3.endpoint,
        readEndpoint: proxy.endpoint,
        credentials: s3.credentials,
      },
    });
    reader = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, credentials: s3.credentials });
  });

  afterAll(async () => {
    reader?.close();
    await h?.close();
    await proxy?.close();
    await s3?.close();
  });

  async function importNewJob(template: string, name: string) {
    const job = createJob(h.emulator.context, jobWithoutLogConf(template, name));
    const [imported] = await databricksIntegrationOf(h.server.services).onboarding.importJobs(
      h.workspaceId,
      { jobIds: [String(job.jobId)], settings: {} },
      'test',
    );
    const projectId = imported?.projects[0]?.id;
    if (!projectId) throw new Error(`nothing imported for ${name}`);
    return { jobId: String(job.jobId), projectId };
  }

  /** What the emulator delivered for the run's cluster: the event-log objects and their total size. */
  async function deliveredEventLog(runId: string) {
    const run = await h.databricks.getRun(runId);
    const clusterId = run.tasks?.[0]?.cluster_instance?.cluster_id;
    const objects = (await reader.list(bucket, `setpoint/${clusterId}/eventlog/`)).filter((object) =>
      /\/eventlog[^/]*$/.test(object.key),
    );
    return { clusterId, objects, bytes: objects.reduce((sum, object) => sum + object.size, 0) };
  }

  it('reports S3 read access in the access check', async () => {
    const lines = await databricksIntegrationOf(h.server.services).checkAccess(h.workspaceId);
    const s3Line = lines.find((line) => line.check === 'read S3');

    expect(s3Line).toMatchObject({ ok: true });
    expect(s3Line?.detail).toContain(`can list ${logDestination}`);
    expect(lines.some((line) => line.check === 'read DBFS')).toBe(false);
  });

  it('onboards the job onto the S3 destination and collects a run’s event log from S3', async () => {
    const { jobId, projectId } = await importNewJob('Daily aggregation', 'Daily aggregation (S3)');
    const job = await h.databricks.getJob(jobId);
    expect(job.settings.tasks?.[0]?.new_cluster?.cluster_log_conf).toMatchObject({
      s3: { destination: logDestination },
    });

    const runId = await h.databricks.runNow(jobId);
    const run = await processedRun(h, projectId, runId);
    const delivered = await deliveredEventLog(runId);
    const detail = await h.server.services.runs.get(projectId, run.id);

    expect(run.pipelineState).toBe('DONE');
    expect(run.status).toBe('SUCCESS');
    expect(delivered.objects.some((object) => object.key.endsWith('/eventlog'))).toBe(true);
    expect(run.eventlogBytes).toBe(delivered.bytes);
    expect(detail.profileSummary?.jobs).toBeGreaterThan(0);
    expect(detail.profileSummary?.tasks).toBeGreaterThan(0);
    expect(detail.cost?.totalUsd ?? 0).toBeGreaterThan(0);
    expect(proxy.seen.some((request) => request === `GET /${bucket}/${delivered.objects[0]?.key}`)).toBe(
      true,
    );
  });

  it('retries and resumes when S3 fails in the middle of a download', async () => {
    const { jobId, projectId } = await importNewJob('Skewed join', 'Skewed join (S3)');
    proxy.cutDownloads(/\/eventlog$/, 2);
    proxy.failRequests(/\/eventlog-[^/]+\.gz$/, 4);

    const runId = await h.databricks.runNow(jobId);
    const run = await processedRun(h, projectId, runId);
    const delivered = await deliveredEventLog(runId);
    const liveKey = delivered.objects.find((object) => object.key.endsWith('/eventlog'))?.key;

    expect(run.pipelineState).toBe('DONE');
    expect(run.eventlogBytes).toBe(delivered.bytes);
    expect(
      proxy.seen.filter((request) => request === `GET /${bucket}/${liveKey}`).length,
    ).toBeGreaterThanOrEqual(3);
    const stored = await h.server.services.runs.list(projectId, { limit: 50, offset: 0 });
    expect(stored.items.filter((item) => item.externalRunId === runId)).toHaveLength(1);
  });

  it('says what is wrong when the bucket does not exist', async () => {
    const lines = await databricksIntegrationOf(h.server.services).checkAccess(
      h.workspaceId,
      's3://no-such-bucket/logs',
    );
    const s3Line = lines.find((line) => line.check === 'read S3');

    expect(s3Line?.ok).toBe(false);
    expect(s3Line?.detail).toMatch(/bucket does not exist/);
    expect(s3Line?.fix).toMatch(/create the bucket no-such-bucket/);
  });

  it('tells which grants are missing when S3 refuses the keys', async () => {
    const stranger = new S3Client({
      region: 'us-east-1',
      endpoint: s3.endpoint,
      credentials: { accessKeyId: 'AKIAWRONGKEY', secretAccessKey: 'not-the-secret' },
      maxAttempts: 1,
    });
    const lines = await checkWorkspaceAccess(h.databricks, {
      logDestination,
      checkS3: (destination) => probeS3LogDestination(stranger, destination),
    });
    stranger.close();
    const s3Line = lines.find((line) => line.check === 'read S3');

    expect(s3Line?.ok).toBe(false);
    expect(s3Line?.detail).toMatch(/access denied \(InvalidAccessKeyId\)/);
    expect(s3Line?.detail).not.toContain('not-the-secret');
    expect(s3Line?.fix).toBe(
      `allow s3:ListBucket on arn:aws:s3:::${bucket} and s3:GetObject on arn:aws:s3:::${bucket}/setpoint/* for these AWS credentials`,
    );
  });

  it('keeps the AWS keys out of the API', async () => {
    const key = await h.server.services.apiKeys.create('s3-secrets', 'test');
    const { accessToken } = await h.server.services.apiKeys.exchange(key.id, key.secret);
    const response = await h.server.app.inject({
      method: 'GET',
      url: `/api/v1/workspaces/${h.workspaceId}`,
      headers: { authorization: `Bearer ${accessToken}` },
    });
    const stored = await h.server.services.workspaces.credentials(h.workspaceId);

    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: h.workspaceId });
    expect(response.body).not.toContain(s3.credentials.secretAccessKey);
    expect(response.body).not.toContain('aws_secret_access_key');
    expect(stored.credentials?.aws_secret_access_key).toBe(s3.credentials.secretAccessKey);
  });

  it('parks the collection with a clear error when the log bucket does not exist', async () => {
    const settings = jobWithoutLogConf('Daily aggregation', 'Daily aggregation (gone bucket)');
    for (const task of settings.tasks ?? [])
      if (task.new_cluster)
        task.new_cluster.cluster_log_conf = { s3: { destination: 's3://gone-bucket/logs' } };
    const job = createJob(h.emulator.context, settings);
    await databricksIntegrationOf(h.server.services).onboarding.importJobs(
      h.workspaceId,
      { jobIds: [String(job.jobId)], settings: {} },
      'test',
    );
    const key = await h.server.services.apiKeys.create('s3-parked', 'test');
    const { accessToken } = await h.server.services.apiKeys.exchange(key.id, key.secret);

    const runId = await h.databricks.runNow(String(job.jobId));
    const parked = await eventually(async () => {
      const response = await h.server.app.inject({
        method: 'GET',
        url: '/api/v1/jobs/parked?limit=50',
        headers: { authorization: `Bearer ${accessToken}` },
      });
      const items = response.json().items as Array<{
        kind: string;
        payload: { runId?: string };
        error: string;
      }>;
      return items.find((item) => item.kind === 'databricks.collect' && item.payload.runId === runId);
    }, 'the collection to be parked');

    expect(parked.error).toMatch(
      /cannot read the event log of run \d+: LIST s3:\/\/gone-bucket\/.*the bucket does not exist/,
    );
  });
});
