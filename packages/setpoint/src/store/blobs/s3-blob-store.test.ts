import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { S3Client } from '@setpoint/foundation/s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3TestServer, startS3TestServer } from '../../../../../tests/support/s3-test-server.js';
import { createEventLogFetcher } from '../../service/runs/eventlog-fetcher.js';
import { S3BlobStore } from './s3-blob-store.js';

describe('S3 through the AWS SDK against an S3-compatible server', () => {
  let server: S3TestServer;
  let client: S3Client;
  let scratch: string;

  beforeAll(async () => {
    server = await startS3TestServer(['blobs']);
    client = new S3Client({
      region: 'us-east-1',
      endpoint: server.endpoint,
      credentials: server.credentials,
    });
    scratch = await mkdtemp(path.join(tmpdir(), 'setpoint-s3-test-'));
  });

  afterAll(async () => {
    client.close();
    await server.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('stores a bundle, copies it back file by file and deletes it', async () => {
    const store = new S3BlobStore(client, { bucket: 'blobs', prefix: '/eventlogs/' });
    for (const [name, text] of [
      ['eventlog', 'live part\n'],
      ['eventlog-2026-01-01--10-00.gz', 'rolled part\n'],
    ] as const) {
      const file = path.join(scratch, name);
      await writeFile(file, text);
      await store.putFile('run_1', name, file);
    }
    expect((await client.listKeys('blobs', 'eventlogs/run_1/')).sort()).toEqual([
      'eventlogs/run_1/eventlog',
      'eventlogs/run_1/eventlog-2026-01-01--10-00.gz',
    ]);
    const copied = await store.withLocalCopy('run_1', async (directory) => ({
      live: await readFile(path.join(directory, 'eventlog'), 'utf8'),
      rolled: await readFile(path.join(directory, 'eventlog-2026-01-01--10-00.gz'), 'utf8'),
    }));
    expect(copied).toEqual({ live: 'live part\n', rolled: 'rolled part\n' });
    await store.deleteBundle('run_1');
    expect((await client.listKeys('blobs', 'eventlogs/run_1/')).sort()).toEqual([]);
  });

  it('lists across pages', async () => {
    for (let index = 0; index < 5; index += 1)
      await client.putObject('blobs', `paged/dir${index % 2}/object-${index}`, `body ${index}`);
    const paged = await client.list('blobs', 'paged/', { pageSize: 2 });
    expect(paged.map((object) => object.key).sort()).toEqual([
      'paged/dir0/object-0',
      'paged/dir0/object-2',
      'paged/dir0/object-4',
      'paged/dir1/object-1',
      'paged/dir1/object-3',
    ]);
    expect(paged.find((object) => object.key === 'paged/dir1/object-3')?.size).toBe(6);
  });

  it('fetches an s3:// event log URI as a stream, within the byte limit', async () => {
    await client.putObject('blobs', 'uploads/app 1/eventlog', 'x'.repeat(1000));
    const fetcher = createEventLogFetcher({ fetch: (url) => fetch(url), s3: client, maxBytes: 1500 });
    const target = path.join(scratch, 'fetched');
    expect(await fetcher.fetchTo('s3://blobs/uploads/app%201/eventlog', target)).toBe(1000);
    expect((await readFile(target, 'utf8')).length).toBe(1000);
    const small = createEventLogFetcher({ fetch: (url) => fetch(url), s3: client, maxBytes: 500 });
    await expect(small.fetchTo('s3://blobs/uploads/app%201/eventlog', target)).rejects.toMatchObject({
      code: 'UPLOAD_TOO_LARGE',
    });
  });

  it('names a missing bucket, a missing object and refused credentials', async () => {
    await expect(client.listKeys('no-such-bucket', '')).rejects.toMatchObject({
      code: 'S3_BUCKET_NOT_FOUND',
    });
    await expect(client.getObject('blobs', 'missing/key')).rejects.toMatchObject({
      code: 'S3_OBJECT_NOT_FOUND',
    });
    const stranger = new S3Client({
      region: 'us-east-1',
      endpoint: server.endpoint,
      credentials: { accessKeyId: 'AKIASTRANGER', secretAccessKey: 'wrong' },
      maxAttempts: 1,
    });
    await expect(stranger.listKeys('blobs', '')).rejects.toMatchObject({ code: 'S3_ACCESS_DENIED' });
    stranger.close();
  });
});
