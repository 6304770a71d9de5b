import { shippedSources } from 'setpoint/optimizer/shipped-fleet/shipped-fleet-data';
import { describe, expect, it } from 'vitest';
import { buildShippedSources } from '../../scripts/datasets/build-shipped-fleet.js';

describe('the shipped fleet data', () => {
  it('is what scripts/datasets/build-shipped-fleet.ts makes of the dataset fixtures today', async () => {
    expect(JSON.parse(JSON.stringify(await buildShippedSources()))).toEqual(
      JSON.parse(JSON.stringify(shippedSources)),
    );
  });
});
