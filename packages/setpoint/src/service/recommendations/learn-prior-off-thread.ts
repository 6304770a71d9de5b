import { startWorker } from '../../eventlog/worker/start-worker.js';
import { type FleetJob, type FleetPrior, learnFleetPrior } from '../../optimizer/fleet-prior.js';
import type { PredictiveCalibration } from '../../optimizer/predictive-calibration.js';

type WorkerReply = { type: 'done'; calibration: PredictiveCalibration } | { type: 'failed'; message: string };

/**
 * `learnCalibratedPrior` without blocking the event loop: the calibration (the expensive inner
 * cross-validation) runs on a worker thread; the prior itself (a fraction of a second) is learned here,
 * since it holds class instances a thread cannot post back.
 */
export async function learnPriorOffThread(jobs: readonly FleetJob[]): Promise<FleetPrior> {
  const worker = startWorker('./fleet-prior-worker', import.meta.url, { workerData: { jobs } });
  const calibration = await new Promise<PredictiveCalibration>((resolve, reject) => {
    worker.once('message', (reply: WorkerReply) =>
      reply.type === 'done' ? resolve(reply.calibration) : reject(new Error(reply.message)),
    );
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the fleet prior worker exited with code ${code}`)));
  }).finally(() => void worker.terminate());
  return { ...learnFleetPrior(jobs), calibration };
}
