import { AppError } from '@setpoint/foundation/errors';
import type { AnalyzeOptions } from '../analyze-event-log.js';
import type { RunProfile } from '../run-profile.js';
import { settleOnce, startWorker } from './start-worker.js';
import { type ProfileJob, reviveWorkerError, type WorkerMessage } from './worker-protocol.js';

export interface WorkerLimits {
  /** Wall-clock time for the whole read; the worker is terminated when it passes. */
  timeoutMs: number;
  /** V8 old-generation heap of the worker (resourceLimits.maxOldGenerationSizeMb). */
  maxHeapMb: number;
}

export const defaultWorkerLimits: WorkerLimits = { timeoutMs: 10 * 60_000, maxHeapMb: 1024 };

export interface WorkerProfileOptions extends AnalyzeOptions {
  worker?: Partial<WorkerLimits>;
}

/** What a job queue should do with a failed parse: park the input, or try again later. */
export type ParseFailureDisposition = 'poison' | 'retry';

/** The worker ran past its wall-clock limit and was terminated. */
export class EventLogTimeoutError extends AppError {
  constructor(source: string, timeoutMs: number) {
    super(
      'validation',
      'EVENTLOG_PARSE_TIMEOUT',
      `${source}: reading the event log took longer than ${Math.round(timeoutMs / 1000)} s (limit timeoutMs)`,
      { details: { limit: 'timeoutMs', limitValue: timeoutMs } },
    );
  }
}

/** The worker needed more heap than its cap allows. */
export class EventLogMemoryError extends AppError {
  constructor(source: string, maxHeapMb: number) {
    super(
      'validation',
      'EVENTLOG_PARSE_MEMORY',
      `${source}: reading the event log needs more than ${maxHeapMb} MiB of heap (limit maxHeapMb)`,
      { details: { limit: 'maxHeapMb', limitValue: maxHeapMb } },
    );
  }
}

/**
 * Timeouts depend on the machine's load, so they are retried (the queue's attempt limit parks a log
 * that always times out); a memory cap, a limit or a malformed log fails the same way every time,
 * so it is poison. Anything unexpected (a crashed worker) is retried.
 */
export function parseFailureDisposition(error: unknown): ParseFailureDisposition {
  if (error instanceof EventLogTimeoutError) return 'retry';
  if (error instanceof AppError && error.kind === 'validation') return 'poison';
  return 'retry';
}

/**
 * Reads the event log at `path` in a worker thread and returns its RunProfile: the calling thread
 * only waits, so an API's event loop, health checks and lease heartbeats keep running. The worker
 * is terminated after `worker.timeoutMs`, and its heap is capped at `worker.maxHeapMb`. Errors:
 * the reader's own AppErrors (same code and message), EventLogTimeoutError, EventLogMemoryError,
 * or an internal AppError when the worker dies otherwise.
 */
export function profileEventLogInWorker(
  path: string,
  options: WorkerProfileOptions = {},
): Promise<RunProfile> {
  const { worker: workerLimits, onProgress, ...analyzeOptions } = options;
  const limits = { ...defaultWorkerLimits, ...workerLimits };
  const job: ProfileJob = { path, options: analyzeOptions, reportProgress: onProgress !== undefined };
  const worker = startWorker('./profile-worker', import.meta.url, {
    workerData: job,
    resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb },
    stdout: false,
    stderr: false,
  });
  return new Promise<RunProfile>((resolve, reject) => {
    const settle = settleOnce(worker, limits.timeoutMs, () =>
      reject(new EventLogTimeoutError(path, limits.timeoutMs)),
    );
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'progress') onProgress?.(message.progress);
      else if (message.type === 'done') settle(() => resolve(message.profile));
      else settle(() => reject(reviveWorkerError(message.error, 'EVENTLOG_WORKER_FAILED')));
    });
    worker.on('error', (error: Error & { code?: string }) => {
      settle(() =>
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new EventLogMemoryError(path, limits.maxHeapMb)
            : new AppError(
                'internal',
                'EVENTLOG_WORKER_FAILED',
                `${path}: the event-log worker failed (${error.message})`,
                {
                  cause: error,
                },
              ),
        ),
      );
    });
    worker.on('exit', (code) => {
      settle(() =>
        reject(
          new AppError(
            'internal',
            'EVENTLOG_WORKER_FAILED',
            `${path}: the event-log worker exited with code ${code}`,
          ),
        ),
      );
    });
  });
}
