import { S3Client } from '@setpoint/foundation/s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3TestServer, startS3TestServer } from '../../../../../../tests/support/s3-test-server.js';
import { checkEventLogCompleteness, locateEventLogDir } from './event-log-location.js';
import { s3LogStore } from './log-store-s3.js';

describe('s3LogStore', () => {
  let server: S3TestServer;
  let client: S3Client;
  const clusterId = '1121-083000-s3log1';
  const base = `logs/setpoint/${clusterId}`;

  beforeAll(async () => {
    server = await startS3TestServer(['cluster-logs']);
    client = new S3Client({
      region: 'us-west-2',
      endpoint: server.endpoint,
      credentials: server.credentials,
    });
    await client.putObject('cluster-logs', `${base}/driver/stdout`, 'started\n');
    await client.putObject('cluster-logs', `${base}/eventlog/${clusterId}_10_1_2_3/555/eventlog`, 'live\n');
    await client.putObject(
      'cluster-logs',
      `${base}/eventlog/${clusterId}_10_1_2_3/555/eventlog-2026-11-21--08-00.gz`,
      'rolled part\n',
    );
  });

  afterAll(async () => {
    client.close();
    await server.close();
  });

  it('lists folders and files one level down, as s3:// paths', async () => {
    const store = s3LogStore(client);
    const top = await store.list(`s3://cluster-logs/logs/setpoint/${clusterId}`);
    expect(
      top
        .map(({ name, isDir, path }) => ({ name, isDir, path }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    ).toEqual([
      { name: 'driver', isDir: true, path: `s3://cluster-logs/${base}/driver` },
      { name: 'eventlog', isDir: true, path: `s3://cluster-logs/${base}/eventlog` },
    ]);
  });

  it('finds the event-log folder and reads each part in full', async () => {
    const store = s3LogStore(client);
    const dir = await locateEventLogDir(store, 's3://cluster-logs/logs/setpoint/', clusterId, '555');
    expect(dir).toBe(`s3://cluster-logs/${base}/eventlog/${clusterId}_10_1_2_3/555`);
    const files = await store.list(dir);
    expect(files.map((file) => [file.name, file.size]).sort()).toEqual([
      ['eventlog', 5],
      ['eventlog-2026-11-21--08-00.gz', 12],
    ]);
    const chunks: Buffer[] = [];
    for await (const chunk of store.read(`${dir}/eventlog`)) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString('utf8')).toBe('live\n');
    expect(checkEventLogCompleteness(files, 1_000, 17, 2_000)).toEqual({ complete: true, totalBytes: 17 });
  });

  it('finds nothing, rather than failing, where no log was delivered', async () => {
    await expect(
      locateEventLogDir(s3LogStore(client), 's3://cluster-logs/logs', 'other-cluster', '1'),
    ).rejects.toMatchObject({
      code: 'EVENT_LOG_NOT_DELIVERED',
    });
  });

  it('names a missing bucket', async () => {
    await expect(s3LogStore(client).list('s3://no-such-bucket/logs')).rejects.toMatchObject({
      code: 'S3_BUCKET_NOT_FOUND',
    });
  });
});
