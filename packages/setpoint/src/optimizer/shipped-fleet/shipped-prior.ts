import { type FleetPrior, learnFleetPrior } from '../fleet-prior.js';
import { shippedCalibration } from './shipped-calibration.js';
import { shippedFleet } from './shipped-fleet.js';

/**
 * The prior of a fresh install: fitted to the whole shipped fleet (about a second) and calibrated as
 * `learnCalibratedPrior` calibrates it, with the calibration learned when the fleet was built
 * (scripts/datasets/build-shipped-calibration.ts): its inner cross-validation takes tens of seconds of CPU,
 * which every new process would otherwise spend before its first recommendation.
 */
export function shippedPrior(): FleetPrior {
  return { ...learnFleetPrior(shippedFleet()), calibration: shippedCalibration };
}
