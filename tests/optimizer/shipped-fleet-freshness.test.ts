import { shippedCalibration } from 'setpoint/optimizer/shipped-fleet/shipped-calibration';
import { shippedSources } from 'setpoint/optimizer/shipped-fleet/shipped-fleet-data';
import { describe, expect, it } from 'vitest';
import { buildShippedCalibration } from '../../scripts/datasets/build-shipped-calibration.js';
import { buildShippedSources } from '../../scripts/datasets/build-shipped-fleet.js';

describe('the shipped fleet data', () => {
  it('is what scripts/datasets/build-shipped-fleet.ts makes of the dataset fixtures today', async () => {
    expect(JSON.parse(JSON.stringify(await buildShippedSources()))).toEqual(
      JSON.parse(JSON.stringify(shippedSources)),
    );
  });

  // The calibration's inner cross-validation replays thousands of cold starts: about twenty seconds of CPU.
  it('is calibrated as learning the calibration from it gives today (build-shipped-calibration.ts)', () => {
    expect(buildShippedCalibration()).toEqual(shippedCalibration);
  }, 600_000);
});
