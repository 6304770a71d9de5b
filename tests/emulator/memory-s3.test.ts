import { type RunningEmulator, startEmulator } from '@setpoint/databricks-emulator/server/build-emulator';
import { S3Client } from '@setpoint/foundation/s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

describe("the emulator's in-memory S3 face", () => {
  let emulator: RunningEmulator;
  let s3: S3Client;

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, clockSpeed: 0, preloadJobs: false, memoryS3: true });
    s3 = new S3Client({
      region: 'us-east-1',
      endpoint: `${emulator.url}/s3`,
      credentials: { accessKeyId: 'any', secretAccessKey: 'any' },
    });
  });

  afterAll(async () => {
    s3?.close();
    await emulator?.close();
  });

  it('serves what log delivery wrote through GetObject and paged ListObjectsV2, with S3 errors', async () => {
    const store = emulator.memoryS3;
    if (!store) throw new Error('memoryS3 was asked for');
    for (let index = 0; index < 5; index += 1)
      store.write(`s3://logs/apps/app-${index}`, new TextEncoder().encode(`log ${index}`), 1_000 * index);
    store.write('s3://logs/other/x', new TextEncoder().encode('x'), 0);

    const listed = await s3.list('logs', 'apps/', { pageSize: 2 });
    expect(listed.map((object) => object.key)).toEqual([0, 1, 2, 3, 4].map((index) => `apps/app-${index}`));
    expect(listed[3]).toMatchObject({ size: 5, lastModified: 3_000 });
    const chunks: Buffer[] = [];
    for await (const chunk of await s3.getObject('logs', 'apps/app-2')) chunks.push(Buffer.from(chunk));
    expect(Buffer.concat(chunks).toString()).toBe('log 2');

    await expect(s3.getObject('logs', 'apps/missing')).rejects.toThrow(/apps\/missing/);
    await expect(s3.list('no-bucket', '')).rejects.toThrow(/no-bucket/);

    store.expireBefore(2_500);
    expect(await s3.listKeys('logs', 'apps/')).toEqual(['apps/app-3', 'apps/app-4']);
  });
});
