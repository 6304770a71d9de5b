import { launchableNodeTypes, type NodeTypeFacts } from '@setpoint/validity/databricks';
import { describe, expect, it } from 'vitest';
import { shippedCatalog } from '../../../pricing/catalog/shipped-catalog.js';
import { createPriceCatalog } from '../../../pricing/price-catalog.js';
import { clusterPolicySchema, type NewClusterSpec } from '../api/schema.js';
import { databricksWorkspaceFacts } from '../validity/workspace-facts.js';
import type { DatabricksClusterShape } from './cluster-shape.js';
import { clusterOfShape, validityFilters } from './validity-filters.js';

const catalog = createPriceCatalog([shippedCatalog]);
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
const base: NewClusterSpec = {
  spark_version: '15.4.x-scala2.12',
  node_type_id: 'r5d.xlarge',
  num_workers: 8,
  aws_attributes: { availability: 'SPOT_WITH_FALLBACK', first_on_demand: 1 },
  policy_id: 'P1',
};

function policy(definition: Record<string, unknown>) {
  return clusterPolicySchema.parse({ policy_id: 'P1', name: 'team', definition: JSON.stringify(definition) });
}

const nodeTypes = (...ids: string[]): ReadonlyMap<string, NodeTypeFacts> =>
  new Map(
    launchableNodeTypes(
      ids.map((id) => ({
        node_type_id: id,
        num_cores: 4,
        memory_mb: 32_768,
        photon_worker_capable: !id.startsWith('c4'),
        photon_driver_capable: !id.startsWith('c4'),
        node_instance_type: { local_disks: 1 },
      })),
    ).map((facts) => [facts.nodeTypeId, facts]),
  );

/** The name of the first filter that rejects `shape`, with its reason; null when every filter keeps it. */
function firstRejection(
  shape: DatabricksClusterShape,
  known: { definition?: Record<string, unknown>; launchable?: ReadonlyMap<string, NodeTypeFacts> } = {},
  cluster: NewClusterSpec | null = base,
) {
  const facts = databricksWorkspaceFacts({
    cloud: 'aws',
    policy: known.definition ? policy(known.definition) : null,
    nodeTypes: known.launchable ?? null,
    catalog,
  });
  for (const filter of validityFilters({ facts, base: cluster, current })) {
    const reason = filter.reject({ choice: shape, allowed: true });
    if (reason) return { filter: filter.name, reason };
  }
  return null;
}

describe('the validity filters of Databricks candidates', () => {
  it('writes a shape into the job cluster: managed fields change, the rest stays', () => {
    const cluster = clusterOfShape(
      { ...current, workers: 4, autoscale: null },
      { ...base, spark_conf: { a: 'b' } },
    );
    expect(cluster).toMatchObject({ num_workers: 4, spark_conf: { a: 'b' }, policy_id: 'P1' });
  });

  it('leaves out an autoscale range Databricks refuses, naming the rule', () => {
    const flat = { ...current, workers: 1, autoscale: { minWorkers: 1, maxWorkers: 1 } };
    expect(firstRejection(flat)).toEqual({
      filter: 'autoscale-bounds',
      reason:
        '1–1 × r5d.xlarge (autoscaling), spot with fallback: Invalid autoscale: max_workers (1) must be strictly greater than min_workers (1).',
    });
    expect(
      firstRejection({ ...current, workers: 2, autoscale: { minWorkers: 1, maxWorkers: 2 } }),
    ).toBeNull();
  });

  it('leaves out node types the workspace does not list and Photon on types that cannot run it', () => {
    const launchable = nodeTypes('r5d.xlarge', 'r5d.2xlarge', 'c4.xlarge');
    expect(firstRejection({ ...current, workerNodeType: 'm5d.xlarge' }, { launchable })).toEqual({
      filter: 'node-type-offered',
      reason:
        '8 × m5d.xlarge, spot with fallback: Node type "m5d.xlarge" is not supported in this workspace.',
    });
    expect(firstRejection({ ...current, workerNodeType: 'r5d.2xlarge' }, { launchable })).toBeNull();
    expect(
      firstRejection(
        { ...current, workerNodeType: 'c4.xlarge', driverNodeType: 'c4.xlarge', photon: true },
        {
          launchable,
        },
      )?.filter,
    ).toBe('photon-node-types');
  });

  it("names each rule of the cluster's compute policy, with the value that breaks it", () => {
    const wide = { ...current, workers: 16 };
    expect(
      firstRejection(wide, { definition: { num_workers: { type: 'range', minValue: 2, maxValue: 8 } } }),
    ).toEqual({
      filter: 'policy num_workers range',
      reason:
        '16 × r5d.xlarge, spot with fallback: Validation failed: num_workers 16 is above the maximum 8 (policy "team").',
    });
    expect(
      firstRejection(wide, { definition: { dbus_per_hour: { type: 'range', maxValue: 12 } } })?.reason,
    ).toMatch(/dbus_per_hour \d+(\.\d+)? is above the maximum 12/);
    const photon = { ...current, photon: true };
    expect(
      firstRejection(photon, { definition: { runtime_engine: { type: 'blocklist', values: ['PHOTON'] } } })
        ?.reason,
    ).toMatch(/runtime_engine PHOTON is in the blocklist/);
    const onDemand = { ...current, market: 'on-demand' as const, firstOnDemand: 0 };
    expect(
      firstRejection(onDemand, {
        definition: { 'aws_attributes.availability': { type: 'fixed', value: 'SPOT_WITH_FALLBACK' } },
      })?.filter,
    ).toBe('policy aws_attributes.availability fixed');
    const autoscaled = { ...current, autoscale: { minWorkers: 2, maxWorkers: 8 } };
    expect(firstRejection(autoscaled, { definition: { autoscale: { type: 'forbidden' } } })?.reason).toMatch(
      /autoscale 2 is forbidden/,
    );
    expect(firstRejection(wide, { definition: { autoscale: { type: 'forbidden' } } })).toBeNull();
    expect(firstRejection(wide, { definition: { num_workers: { type: 'unlimited' } } })).toBeNull();
  });

  it("does not hold against the candidates what the job's cluster already breaks, and keeps the current cluster", () => {
    // the job's runtime breaks the policy: every candidate would carry it, none is removed for it
    expect(
      firstRejection(
        { ...current, workers: 4 },
        { definition: { spark_version: { type: 'regex', pattern: '^99' } } },
      ),
    ).toBeNull();
    // the policy has changed since the current cluster was written: it stays a candidate
    expect(
      firstRejection(current, { definition: { num_workers: { type: 'range', maxValue: 4 } } }),
    ).toBeNull();
  });
});
