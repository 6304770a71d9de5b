import type { Worker } from 'node:worker_threads';
import { AppError } from '@setpoint/foundation/errors';
import { startWorker } from '../../eventlog/worker/start-worker.js';
import { reviveWorkerError, type SerializedError } from '../../eventlog/worker/worker-protocol.js';
import type { FleetPrior } from '../../optimizer/fleet-prior.js';
import {
  type OptimizerPassInput,
  type OptimizerPassResult,
  reviveOptimizerPassResult,
} from './optimizer-pass.js';

export interface OptimizerPassLimits {
  /** Wall-clock time for the pass; the worker is terminated when it passes. */
  timeoutMs: number;
  /** V8 old-generation heap of the worker. */
  maxHeapMb: number;
}

/** A pass takes well under a second on an idle machine; the bound is for a stuck or runaway one. */
export const defaultOptimizerPassLimits: OptimizerPassLimits = { timeoutMs: 5 * 60_000, maxHeapMb: 1024 };

/** What the calling thread posts: the prior only to a worker that does not hold it yet. */
export interface PassRequest {
  priorId: number;
  prior: FleetPrior | null;
  input: Omit<OptimizerPassInput, 'prior'>;
}

export type PassReply =
  | { type: 'done'; result: OptimizerPassResult }
  | { type: 'failed'; error: SerializedError };

const failed = (message: string) => new AppError('internal', 'RECOMMENDATION_WORKER_FAILED', message);

/** A worker thread that stays up between passes and keeps the last prior it was sent. */
interface PassWorker {
  worker: Worker;
  maxHeapMb: number;
  /** The prior the worker holds (see `priorIdOf`), 0 for none. */
  priorId: number;
  idleTimer: NodeJS.Timeout | undefined;
}

const priorIds = new WeakMap<FleetPrior, number>();
let lastPriorId = 0;

/** One number per prior object: the fleet source hands out the same object until it relearns. */
function priorIdOf(prior: FleetPrior): number {
  let id = priorIds.get(prior);
  if (id === undefined) {
    id = ++lastPriorId;
    priorIds.set(prior, id);
  }
  return id;
}

/**
 * The recommendation workers of this process. Starting a worker per pass cost the event loop a structured
 * clone of the fleet prior (≈ 0.9 MB of analogs: tens of milliseconds, far more on a loaded machine) and
 * the worker its module loading, for every recommendation; a backlog of runs made that the longest stall
 * of the API. A worker now stays up between passes (up to `keepIdle` of them, each for `idleMs`) and is
 * sent the prior only when it does not hold it; a timed-out, crashed or out-of-memory worker is discarded.
 */
export class OptimizerPassWorkers {
  readonly #idle: PassWorker[] = [];
  readonly #keepIdle: number;
  readonly #idleMs: number;
  /** Counters for tests and diagnostics. */
  readonly stats = { workersStarted: 0, priorsPosted: 0 };

  constructor(options: { keepIdle?: number; idleMs?: number } = {}) {
    this.#keepIdle = options.keepIdle ?? 2;
    this.#idleMs = options.idleMs ?? 60_000;
  }

  /**
   * `runOptimizerPass` on a worker thread: the calling thread posts the input (the prior once per worker)
   * and revives the result, so the API's event loop, health checks and lease heartbeats keep running while
   * the model is fitted. Errors are the pass's own AppErrors (same kind, code and message),
   * `RECOMMENDATION_TIMEOUT` past `timeoutMs`, or `RECOMMENDATION_WORKER_FAILED` (out of memory, crash).
   */
  run(input: OptimizerPassInput, limits: Partial<OptimizerPassLimits> = {}): Promise<OptimizerPassResult> {
    const { timeoutMs, maxHeapMb } = { ...defaultOptimizerPassLimits, ...limits };
    const priorId = priorIdOf(input.prior);
    const entry = this.#take(maxHeapMb, priorId);
    const { prior, ...rest } = input;
    const request: PassRequest = { priorId, prior: entry.priorId === priorId ? null : prior, input: rest };
    if (request.prior) this.stats.priorsPosted += 1;
    entry.priorId = priorId;
    const { worker } = entry;
    return new Promise<OptimizerPassResult>((resolve, reject) => {
      const settle = (outcome: () => void, keep: boolean) => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (keep) this.#release(entry);
        else void worker.terminate();
        outcome();
      };
      const onMessage = (reply: PassReply) =>
        settle(
          () =>
            reply.type === 'done'
              ? resolve(reviveOptimizerPassResult(reply.result))
              : reject(reviveWorkerError(reply.error, 'RECOMMENDATION_WORKER_FAILED')),
          true,
        );
      const onError = (error: Error & { code?: string }) =>
        settle(
          () =>
            reject(
              error.code === 'ERR_WORKER_OUT_OF_MEMORY'
                ? failed(`fitting the model needs more than ${maxHeapMb} MiB of heap`)
                : failed(`the recommendation worker failed (${error.message})`),
            ),
          false,
        );
      const onExit = (code: number) =>
        settle(() => reject(failed(`the recommendation worker exited with code ${code}`)), false);
      const timer = setTimeout(
        () =>
          settle(
            () =>
              reject(
                new AppError(
                  'internal',
                  'RECOMMENDATION_TIMEOUT',
                  `fitting the model took longer than ${Math.round(timeoutMs / 1000)} s`,
                  { details: { limit: 'timeoutMs', limitValue: timeoutMs } },
                ),
              ),
            false,
          ),
        timeoutMs,
      );
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.ref();
      worker.postMessage(request);
    });
  }

  /** Stops the idle workers (a busy one ends with its pass). */
  async close(): Promise<void> {
    const idle = this.#idle.splice(0);
    await Promise.all(
      idle.map((entry) => {
        clearTimeout(entry.idleTimer);
        return entry.worker.terminate();
      }),
    );
  }

  /** An idle worker with this heap limit, preferably one holding the prior; else a new one. */
  #take(maxHeapMb: number, priorId: number): PassWorker {
    const fits = (entry: PassWorker) => entry.maxHeapMb === maxHeapMb;
    const index = Math.max(
      this.#idle.findIndex((entry) => fits(entry) && entry.priorId === priorId),
      this.#idle.findIndex(fits),
    );
    const found = index === -1 ? undefined : this.#idle.splice(index, 1)[0];
    if (found) {
      clearTimeout(found.idleTimer);
      return found;
    }
    this.stats.workersStarted += 1;
    const worker = startWorker('./optimizer-pass-worker', import.meta.url, {
      resourceLimits: { maxOldGenerationSizeMb: maxHeapMb },
    });
    const entry: PassWorker = { worker, maxHeapMb, priorId: 0, idleTimer: undefined };
    // a pass reports its worker's failure; an idle worker that fails is only forgotten
    worker.on('error', () => undefined);
    worker.once('exit', () => {
      const index = this.#idle.indexOf(entry);
      if (index !== -1) this.#idle.splice(index, 1);
      clearTimeout(entry.idleTimer);
    });
    return entry;
  }

  #release(entry: PassWorker): void {
    if (this.#idle.length >= this.#keepIdle) {
      void entry.worker.terminate();
      return;
    }
    // an idle worker neither keeps the process alive nor lingers once recommendations stop
    entry.worker.unref();
    entry.idleTimer = setTimeout(() => void entry.worker.terminate(), this.#idleMs);
    entry.idleTimer.unref();
    this.#idle.push(entry);
  }
}

const sharedWorkers = new OptimizerPassWorkers();

/** `OptimizerPassWorkers.run` on this process's shared workers (the service's default). */
export function runOptimizerPassOffThread(
  input: OptimizerPassInput,
  limits: Partial<OptimizerPassLimits> = {},
): Promise<OptimizerPassResult> {
  return sharedWorkers.run(input, limits);
}
