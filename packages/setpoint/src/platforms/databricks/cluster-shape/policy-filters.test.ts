import { describe, expect, it } from 'vitest';
import { clusterPolicySchema } from '../api/schema.js';
import type { DatabricksClusterShape } from './cluster-shape.js';
import { instancePoolFilter, policyCandidateFilters } from './policy-filters.js';

const current: DatabricksClusterShape = {
  cloud: 'aws',
  workerNodeType: 'r5d.xlarge',
  driverNodeType: 'r5d.xlarge',
  workers: 8,
  autoscale: null,
  market: 'spot-with-fallback',
  firstOnDemand: 1,
  photon: false,
};
/** One DBU per node-hour, two with Photon: easy to read in the assertions. */
const dbusPerHour = (shape: DatabricksClusterShape) => (shape.workers + 1) * (shape.photon ? 2 : 1);

function policy(definition: Record<string, unknown>) {
  return clusterPolicySchema.parse({ policy_id: 'P1', name: 'team', definition: JSON.stringify(definition) });
}

/** The name of the first filter that rejects `shape`, with its reason; null when every filter keeps it. */
function firstRejection(definition: Record<string, unknown>, shape: DatabricksClusterShape) {
  for (const filter of policyCandidateFilters(policy(definition), { current, dbusPerHour })) {
    const reason = filter.reject({ choice: shape, allowed: true });
    if (reason) return { filter: filter.name, reason };
  }
  return null;
}

describe('compute policy filters', () => {
  it('reads every limitation type at the adapter edge and refuses a definition that is not JSON', () => {
    const parsed = policy({
      node_type_id: { type: 'allowlist', values: ['r5d.xlarge'] },
      dbus_per_hour: { type: 'range', maxValue: 10 },
      spark_version: { type: 'regex', pattern: '^15\\.' },
      autotermination_minutes: { type: 'unlimited', defaultValue: 60, isOptional: true },
    });
    expect(parsed.definition.dbus_per_hour).toEqual({ type: 'range', maxValue: 10 });
    expect(() => clusterPolicySchema.parse({ policy_id: 'P1', name: 'x', definition: '{not json' })).toThrow(
      /not JSON/,
    );
    expect(() =>
      clusterPolicySchema.parse({ policy_id: 'P1', name: 'x', definition: '{"a":{"type":"sometimes"}}' }),
    ).toThrow();
  });

  it('removes what each rule forbids, names the rule and the value, and keeps the current cluster', () => {
    const wide = { ...current, workers: 16 };
    expect(firstRejection({ num_workers: { type: 'range', minValue: 2, maxValue: 8 } }, wide)).toEqual({
      filter: 'policy num_workers range',
      reason: '16 × r5d.xlarge spot-with-fallback: num_workers 16 is above the maximum 8 (policy "team")',
    });
    expect(firstRejection({ dbus_per_hour: { type: 'range', maxValue: 12 } }, wide)?.reason).toMatch(
      /dbus_per_hour 17 is above the maximum 12/,
    );
    expect(firstRejection({ dbus_per_hour: { type: 'range', maxValue: 12 } }, current)).toBeNull();
    const photon = { ...current, photon: true };
    expect(firstRejection({ runtime_engine: { type: 'fixed', value: 'STANDARD' } }, photon)?.filter).toBe(
      'policy runtime_engine fixed',
    );
    expect(
      firstRejection({ runtime_engine: { type: 'blocklist', values: ['PHOTON'] } }, photon)?.reason,
    ).toMatch(/runtime_engine PHOTON is in the blocklist/);
    const m5 = { ...current, workerNodeType: 'm5d.2xlarge', driverNodeType: 'r5d.xlarge' };
    expect(firstRejection({ node_type_id: { type: 'regex', pattern: '^r5d\\.' } }, m5)?.reason).toMatch(
      /node_type_id m5d\.2xlarge does not match \^r5d\\\./,
    );
    const onDemand = { ...current, market: 'on-demand' as const, firstOnDemand: 0 };
    expect(
      firstRejection(
        { 'aws_attributes.availability': { type: 'fixed', value: 'SPOT_WITH_FALLBACK' } },
        onDemand,
      )?.filter,
    ).toBe('policy aws_attributes.availability fixed');
    const autoscaled = { ...current, autoscale: { minWorkers: 2, maxWorkers: 8 } };
    expect(firstRejection({ autoscale: { type: 'forbidden' } }, autoscaled)?.reason).toMatch(
      /autoscale 2 is forbidden/,
    );
    expect(firstRejection({ autoscale: { type: 'forbidden' } }, wide)).toBeNull();
    // rules on attributes Setpoint never varies, and "unlimited", remove nothing
    expect(firstRejection({ spark_version: { type: 'regex', pattern: '^99' } }, wide)).toBeNull();
    expect(firstRejection({ num_workers: { type: 'unlimited' } }, wide)).toBeNull();
    // the current cluster stays a candidate even when the policy has changed since it was written
    expect(firstRejection({ num_workers: { type: 'range', maxValue: 4 } }, current)).toBeNull();
  });

  it('keeps an instance-pool cluster on the pool: node type, market and driver stay', () => {
    const filter = instancePoolFilter('pool-1', current);
    expect(filter.reject({ choice: { ...current, workers: 4 }, allowed: true })).toBeNull();
    expect(filter.reject({ choice: { ...current, workerNodeType: 'r5d.2xlarge' }, allowed: true })).toMatch(
      /instance pool pool-1, whose node type is r5d\.xlarge/,
    );
    expect(
      filter.reject({ choice: { ...current, market: 'on-demand', firstOnDemand: 0 }, allowed: true }),
    ).toMatch(/instance pool pool-1 decides the market/);
  });
});
