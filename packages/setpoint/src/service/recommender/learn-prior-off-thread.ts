import { AppError } from '@setpoint/foundation/errors';
import { startWorker } from '../../eventlog/worker/start-worker.js';
import { type FleetJob, type FleetPrior, reviveFleetPrior } from '../../optimizer/fleet-prior.js';

type WorkerReply = { type: 'done'; prior: FleetPrior } | { type: 'failed'; message: string };

/** The shipped fleet to learn with, built on the worker: its sources, without the ones named here. */
export interface ShippedFleetSelection {
  exclude: readonly string[];
}

/** The V8 heap of the learning worker. */
export interface FleetPriorWorkerLimits {
  /** Old generation: what stays live while learning (the fleet's jobs, the folds' priors, the cases). */
  maxOldGenerationSizeMb: number;
  /** Young generation: where each prediction's short-lived arrays are made and collected. */
  maxYoungGenerationSizeMb: number;
}

/**
 * Learning the shipped fleet with 14 of an organization's jobs keeps about 35 MB live, 300 jobs of 30 runs
 * about 40 MB; the old generation's bound leaves room for far larger fleets. The young generation's bound
 * is what keeps the worker small: with V8's default a learning's garbage (hundreds of thousands of small
 * typed arrays, their memory outside the heap) piled up to about 300 MB before it was collected, and the
 * allocator kept much of it after the worker ended (docs/benchmarks.md, "Dashboard demo").
 */
export const fleetPriorWorkerLimits: FleetPriorWorkerLimits = {
  maxOldGenerationSizeMb: 256,
  maxYoungGenerationSizeMb: 8,
};

/**
 * `learnCalibratedPrior` without blocking the event loop: the prior and its calibration (the expensive
 * inner cross-validation) are both learned on a worker thread with a bounded heap, which posts back the
 * fitted prior; here it only gets its classes back (`reviveFleetPrior`), so the service keeps answering
 * meanwhile. With `shipped`, the worker puts the shipped fleet's jobs before `jobs` itself: the calling
 * thread neither builds nor clones them (megabytes of observations) on every learning. A learning that
 * needs more heap than `limits` fails with `FLEET_PRIOR_WORKER_FAILED`.
 */
export async function learnPriorOffThread(
  jobs: readonly FleetJob[],
  options: { shipped?: ShippedFleetSelection; limits?: FleetPriorWorkerLimits } = {},
): Promise<FleetPrior> {
  const limits = options.limits ?? fleetPriorWorkerLimits;
  const worker = startWorker('./fleet-prior-worker', import.meta.url, {
    workerData: { jobs, shipped: options.shipped ?? null },
    resourceLimits: { ...limits },
  });
  const prior = await new Promise<FleetPrior>((resolve, reject) => {
    worker.once('message', (reply: WorkerReply) =>
      reply.type === 'done' ? resolve(reply.prior) : reject(failed(reply.message)),
    );
    worker.once('error', (error: Error & { code?: string }) =>
      reject(
        failed(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `learning the fleet prior needs more than ${limits.maxOldGenerationSizeMb} MiB of heap`
            : `the fleet prior worker failed (${error.message})`,
        ),
      ),
    );
    worker.once('exit', (code) => reject(failed(`the fleet prior worker exited with code ${code}`)));
  }).finally(() => void worker.terminate());
  return reviveFleetPrior(prior);
}

const failed = (message: string) => new AppError('internal', 'FLEET_PRIOR_WORKER_FAILED', message);
