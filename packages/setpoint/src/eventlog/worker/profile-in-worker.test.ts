import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { AppError } from '@setpoint/foundation/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EventLogMemoryError,
  EventLogTimeoutError,
  parseFailureDisposition,
  profileEventLogInWorker,
} from './profile-in-worker.js';

const fixture = join(
  import.meta.dirname,
  '../../../../../tests/fixtures/eventlog/spark4/logs/eventlog_v2_local-1795240165860',
);
const header =
  '{"Event":"SparkListenerLogStart","Spark Version":"3.5.1"}\n{"Event":"SparkListenerApplicationStart","App Name":"w","Timestamp":1700000000000}\n';

function taskEnd(taskId: number): string {
  return `{"Event":"SparkListenerTaskEnd","Stage ID":${taskId % 50},"Stage Attempt ID":0,"Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":${taskId},"Launch Time":1700000000000,"Executor ID":"${taskId % 8}","Host":"h","Finish Time":1700000001000,"Failed":false,"Killed":false},"Task Metrics":{"Executor Run Time":900}}\n`;
}

async function rejectionOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    return error as AppError;
  }
  throw new Error('expected a rejection');
}

describe('profileEventLogInWorker', () => {
  let scratch: string;
  let slowLog: string;
  let jobFlood: string;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'setpoint-worker-'));
    // ~1.3 GB of task ends once decompressed: one gzip member of 4 MiB of lines, repeated (multi-member gzip).
    const block = Array.from({ length: 14_000 }, (_, index) => taskEnd(index)).join('');
    const member = gzipSync(block, { level: 1 });
    slowLog = join(scratch, 'slow.gz');
    writeFileSync(slowLog, Buffer.concat([gzipSync(header), ...Array.from({ length: 300 }, () => member)]));
    // 1.5M distinct jobs: small on disk, a lot of heap.
    const jobs = Array.from(
      { length: 1_500_000 },
      (_, id) => `{"Event":"SparkListenerJobStart","Job ID":${id},"Submission Time":1700000000000}\n`,
    ).join('');
    jobFlood = join(scratch, 'jobs.gz');
    writeFileSync(jobFlood, gzipSync(header + jobs, { level: 1 }));
  });

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('returns the same profile as reading on this thread would', async () => {
    const { analyzeEventLog } = await import('../analyze-event-log.js');
    const progress: number[] = [];
    const [inWorker, here] = await Promise.all([
      profileEventLogInWorker(fixture, { onProgress: (p) => progress.push(p.storedBytesRead) }),
      analyzeEventLog(fixture),
    ]);
    expect(inWorker).toEqual(here);
    expect(progress.length).toBeGreaterThan(0);
  });

  it('terminates a read past its timeout while this thread keeps running', async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    delay.enable();
    const error = await rejectionOf(profileEventLogInWorker(slowLog, { worker: { timeoutMs: 1500 } }));
    delay.disable();
    clearInterval(ticker);
    expect(error).toBeInstanceOf(EventLogTimeoutError);
    expect(error.code).toBe('EVENTLOG_PARSE_TIMEOUT');
    expect(parseFailureDisposition(error)).toBe('retry');
    // 1.5 s of parsing elsewhere: the timer here kept firing, and no callback waited as long as the parse.
    expect(ticks).toBeGreaterThan(20);
    expect(delay.max / 1e6).toBeLessThan(1000);
  });

  it('stops a read that needs more heap than its cap with a memory error', async () => {
    const error = await rejectionOf(profileEventLogInWorker(jobFlood, { worker: { maxHeapMb: 96 } }));
    expect(error).toBeInstanceOf(EventLogMemoryError);
    expect(error.code).toBe('EVENTLOG_PARSE_MEMORY');
    expect(parseFailureDisposition(error)).toBe('poison');
  });

  it('passes on the reader’s own errors with their code, as poison', async () => {
    const notALog = join(scratch, 'notes.txt');
    writeFileSync(notALog, 'hello, not a Spark log');
    const error = await rejectionOf(profileEventLogInWorker(notALog));
    expect(error).toBeInstanceOf(AppError);
    expect(error.kind).toBe('validation');
    expect(error.code).toBe('EVENTLOG_NOT_RECOGNISED');
    expect(parseFailureDisposition(error)).toBe('poison');
    const limited = await rejectionOf(
      profileEventLogInWorker(slowLog, { limits: { maxDecompressedBytes: 2 ** 20 } }),
    );
    expect(limited.code).toBe('EVENTLOG_TOO_LARGE');
    expect(limited.details).toEqual({ limit: 'maxDecompressedBytes', limitValue: 2 ** 20 });
  });
});
