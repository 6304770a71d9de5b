/**
 * The worker-thread side of `learnPriorOffThread`: learning a fleet prior fits every fleet job and
 * calibrating it replays hundreds of cold starts (seconds of CPU), so both run here and the fitted prior
 * is posted back (structured clone; the caller revives its classes); the service's event loop keeps
 * answering meanwhile.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { learnCalibratedPrior } from '../../optimizer/calibrated-prior.js';
import type { FleetJob } from '../../optimizer/fleet-prior.js';

const { jobs } = workerData as { jobs: FleetJob[] };
try {
  parentPort?.postMessage({ type: 'done', prior: learnCalibratedPrior(jobs) });
} catch (error) {
  parentPort?.postMessage({
    type: 'failed',
    message: error instanceof Error ? error.message : String(error),
  });
}
