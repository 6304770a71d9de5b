import type { NewClusterSettings } from '@setpoint/databricks-emulator';
import { loadEmulator } from 'setpoint/demo/load-emulator';
import { describe, expect, it } from 'vitest';
import {
  addRecommendationValidity,
  checkRecommendation,
  noRecommendationsChecked,
  simulatedWorkspaceFacts,
} from './recommendation-validity.js';

const running: NewClusterSettings = {
  spark_version: '15.4.x-scala2.12',
  node_type_id: 'r5d.xlarge',
  num_workers: 4,
  aws_attributes: { availability: 'ON_DEMAND' },
};

describe('recommendations checked with the validity contract in the simulated Job Bank', () => {
  it('counts a recommendation Databricks would refuse and names its rule; a valid one counts as checked only', async () => {
    const facts = simulatedWorkspaceFacts(await loadEmulator(), 'aws');
    const tally = noRecommendationsChecked();

    checkRecommendation(
      tally,
      'valid',
      { ...running, node_type_id: 'c5d.2xlarge', num_workers: 2 },
      running,
      facts,
    );
    expect(tally).toEqual({ checked: 1, invalid: 0, examples: [] });

    const { num_workers: _workers, ...autoscaling } = running;
    checkRecommendation(
      tally,
      'one-one',
      { ...autoscaling, autoscale: { min_workers: 1, max_workers: 1 } },
      running,
      facts,
    );
    // an Azure node type is not one an AWS workspace lists
    checkRecommendation(tally, 'azure type', { ...running, node_type_id: 'Standard_DS3_v2' }, running, facts);
    // no instance store and no EBS volumes: accepted, then fails to launch
    checkRecommendation(tally, 'bare c5', { ...running, node_type_id: 'c5.2xlarge' }, running, facts);

    expect(tally.checked).toBe(4);
    expect(tally.invalid).toBe(3);
    expect(tally.examples).toEqual([
      expect.stringMatching(/^one-one: autoscale-bounds: .*\[autoscale\.max_workers\]$/),
      expect.stringMatching(/^azure type: node-type-offered: .*Standard_DS3_v2/),
      expect.stringMatching(/^bare c5: ebs-only-node-storage: /),
    ]);
  });

  it('does not hold against a recommendation a launch problem the cluster the job runs on already has', async () => {
    const facts = simulatedWorkspaceFacts(await loadEmulator(), 'aws');
    const bare: NewClusterSettings = { ...running, node_type_id: 'm5.xlarge' };
    const tally = noRecommendationsChecked();

    // keeping the cluster the job launches today carries its problem; a move to another bare type adds one
    checkRecommendation(tally, 'keep', { ...bare, num_workers: 6 }, bare, facts);
    checkRecommendation(tally, 'move', { ...bare, node_type_id: 'c5.xlarge' }, bare, facts);

    expect(tally).toMatchObject({ checked: 2, invalid: 1 });
    expect(tally.examples[0]).toMatch(/^move: ebs-only-node-storage: /);
  });

  it('adds up loops, keeping the first few examples', () => {
    const one = { checked: 3, invalid: 2, examples: ['a', 'b', 'c'] };
    const two = { checked: 4, invalid: 3, examples: ['d', 'e', 'f'] };
    expect(addRecommendationValidity(one, two)).toEqual({
      checked: 7,
      invalid: 5,
      examples: ['a', 'b', 'c', 'd', 'e'],
    });
  });
});
