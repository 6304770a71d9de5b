import { readFileSync } from 'node:fs';
import { shippedCalibration } from 'setpoint/optimizer/shipped-fleet/shipped-calibration';
import { describe, expect, it } from 'vitest';
import { buildShippedCalibration } from '../../scripts/datasets/build-shipped-calibration.js';
import {
  buildShippedSources,
  shippedFleetDataFile,
  shippedFleetJson,
} from '../../scripts/datasets/build-shipped-fleet.js';

describe('the shipped fleet data', () => {
  it('is, to the byte, what scripts/datasets/build-shipped-fleet.ts makes of its sources today', async () => {
    const generated = shippedFleetJson(await buildShippedSources());
    expect(
      readFileSync(shippedFleetDataFile, 'utf8'),
      'run npx tsx scripts/datasets/build-shipped-fleet.ts',
    ).toBe(generated);
  });

  // The calibration's inner cross-validation replays thousands of cold starts: about twenty seconds of CPU.
  it('is calibrated as learning the calibration from it gives today (build-shipped-calibration.ts)', () => {
    expect(buildShippedCalibration()).toEqual(shippedCalibration);
  }, 600_000);
});
