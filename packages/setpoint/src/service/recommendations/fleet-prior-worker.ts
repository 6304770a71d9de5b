/**
 * The worker-thread side of `learnPriorOffThread`: calibrating a fleet prior replays hundreds of cold
 * starts (seconds of CPU), so it runs here and posts back only the calibration (plain numbers); the
 * service's event loop keeps answering meanwhile.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { learnCalibratedPrior } from '../../optimizer/calibrated-prior.js';
import type { FleetJob } from '../../optimizer/fleet-prior.js';

const { jobs } = workerData as { jobs: FleetJob[] };
try {
  parentPort?.postMessage({ type: 'done', calibration: learnCalibratedPrior(jobs).calibration });
} catch (error) {
  parentPort?.postMessage({
    type: 'failed',
    message: error instanceof Error ? error.message : String(error),
  });
}
