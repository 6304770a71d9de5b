import { describe, expect, it } from 'vitest';
import { createLogger } from '../logging/logger.js';
import { stallRecovery } from './stall-recovery.js';

describe('stall recovery', () => {
  it('re-queues every stalled run, letting the event loop turn between batches', async () => {
    const states = ['PARSING', 'COSTING', 'MODELING', 'INGESTING'] as const;
    const stalled = Array.from({ length: 100 }, (_, i) => ({ id: `run_${i}`, pipelineState: states[i % 4] }));
    const enqueued: string[] = [];
    // what an HTTP request or a health check is: a callback of a later turn of the event loop
    let enqueuedAtNextTurn: number | undefined;
    const resume = stallRecovery({
      runs: { stalled: async () => stalled } as never,
      queue: {
        enqueue: async (_kind: string, _payload: unknown, options?: { idempotencyKey?: string }) => {
          if (enqueued.length === 0) setImmediate(() => (enqueuedAtNextTurn ??= enqueued.length));
          enqueued.push(options?.idempotencyKey ?? '');
        },
      } as never,
      logger: createLogger('silent'),
    });

    expect(await resume(60_000)).toBe(100);
    expect(enqueued.slice(0, 4)).toEqual([
      'run.parse:run_0',
      'run.cost:run_1',
      'run.request-recommendation:run_2',
      'run.ingest:run_3',
    ]);
    expect(new Set(enqueued).size).toBe(100);
    expect(enqueuedAtNextTurn).toBeLessThan(50);
  });
});
