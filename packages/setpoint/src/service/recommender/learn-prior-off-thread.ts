import { startWorker } from '../../eventlog/worker/start-worker.js';
import { type FleetJob, type FleetPrior, reviveFleetPrior } from '../../optimizer/fleet-prior.js';

type WorkerReply = { type: 'done'; prior: FleetPrior } | { type: 'failed'; message: string };

/** The shipped fleet to learn with, built on the worker: its sources, without the ones named here. */
export interface ShippedFleetSelection {
  exclude: readonly string[];
}

/**
 * `learnCalibratedPrior` without blocking the event loop: the prior and its calibration (the expensive
 * inner cross-validation) are both learned on a worker thread, which posts back the fitted prior; here it
 * only gets its classes back (`reviveFleetPrior`), so the service keeps answering meanwhile. With
 * `shipped`, the worker puts the shipped fleet's jobs before `jobs` itself: the calling thread neither
 * builds nor clones them (megabytes of observations) on every learning.
 */
export async function learnPriorOffThread(
  jobs: readonly FleetJob[],
  options: { shipped?: ShippedFleetSelection } = {},
): Promise<FleetPrior> {
  const worker = startWorker('./fleet-prior-worker', import.meta.url, {
    workerData: { jobs, shipped: options.shipped ?? null },
  });
  const prior = await new Promise<FleetPrior>((resolve, reject) => {
    worker.once('message', (reply: WorkerReply) =>
      reply.type === 'done' ? resolve(reply.prior) : reject(new Error(reply.message)),
    );
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the fleet prior worker exited with code ${code}`)));
  }).finally(() => void worker.terminate());
  return reviveFleetPrior(prior);
}
