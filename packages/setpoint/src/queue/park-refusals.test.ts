import { ConflictError, UpstreamError } from '@setpoint/foundation/errors';
import { describe, expect, it } from 'vitest';
import { isRefusal } from '../service/jobs/job-refusal.js';
import { PermanentJobError } from './job-queue.js';
import { parkWhen } from './park-refusals.js';

describe('parkWhen with isRefusal', () => {
  it('parks a refusal and lets the platform’s errors be retried', async () => {
    const refusal = new ConflictError('EXTERNAL_CHANGE', 'job 4 was changed outside Setpoint');
    await expect(
      parkWhen(isRefusal, async () => {
        throw refusal;
      }),
    ).rejects.toBeInstanceOf(PermanentJobError);
    const upstream = new UpstreamError('UPSTREAM_ERROR', 'HTTP 503');
    await expect(
      parkWhen(isRefusal, async () => {
        throw upstream;
      }),
    ).rejects.toBe(upstream);
    const network = new TypeError('fetch failed');
    await expect(
      parkWhen(isRefusal, async () => {
        throw network;
      }),
    ).rejects.toBe(network);
  });
});
