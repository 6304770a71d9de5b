/**
 * The worker-thread side of `learnPriorOffThread`: learning a fleet prior fits every fleet job and
 * calibrating it replays hundreds of cold starts (seconds of CPU), so both run here and the fitted prior
 * is posted back (structured clone; the caller revives its classes); the service's event loop keeps
 * answering meanwhile. The shipped fleet, when asked for, is built here rather than cloned in.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { learnCalibratedPrior } from '../../optimizer/calibrated-prior.js';
import type { FleetJob } from '../../optimizer/fleet-prior.js';
import { shippedFleet } from '../../optimizer/shipped-fleet/shipped-fleet.js';
import { shippedPrior } from '../../optimizer/shipped-fleet/shipped-prior.js';
import type { ShippedFleetSelection } from './learn-prior-off-thread.js';

const { jobs, shipped } = workerData as { jobs: FleetJob[]; shipped: ShippedFleetSelection | null };
try {
  // the whole shipped fleet alone was calibrated when it was built
  const shippedAlone = shipped !== null && shipped.exclude.length === 0 && jobs.length === 0;
  const prior = shippedAlone
    ? shippedPrior()
    : learnCalibratedPrior(shipped ? [...shippedFleet(shipped), ...jobs] : jobs);
  parentPort?.postMessage({ type: 'done', prior });
} catch (error) {
  parentPort?.postMessage({
    type: 'failed',
    message: error instanceof Error ? error.message : String(error),
  });
}
