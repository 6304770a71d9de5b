import { defaultProjectSettings } from '@setpoint/api-contract';
import { describe, expect, it } from 'vitest';
import type { RunProfile } from '../../../eventlog/run-profile.js';
import { shippedCatalog } from '../../../pricing/catalog/shipped-catalog.js';
import { createPriceCatalog } from '../../../pricing/price-catalog.js';
import type { NewClusterSpec } from '../api/schema.js';
import { nodeTypesRanOf, nodeTypeThatRan } from '../runs/node-types-ran.js';
import { runTimeline } from '../runs/run-coster.js';
import { buildCandidateSpace } from './candidates.js';
import { shapeId, shapeOfCluster } from './cluster-shape.js';
import { flexibleNodeTypesKept } from './flexible-node-types.js';
import { clusterOfShape } from './validity-filters.js';

const catalog = createPriceCatalog([shippedCatalog]);

/** A job with flexible node types: m5d.xlarge workers, m5ad.xlarge when m5d capacity is short. */
const flexible: NewClusterSpec = {
  spark_version: '15.4.x-scala2.12',
  node_type_id: 'm5d.xlarge',
  num_workers: 4,
  aws_attributes: { availability: 'ON_DEMAND' },
  worker_node_type_flexibility: { alternate_node_type_ids: ['m5ad.xlarge'] },
} as NewClusterSpec;
const current = shapeOfCluster(flexible, 'aws');

describe('flexible node types: read, kept as the team set them, and the instance that ran costed', () => {
  const built = buildCandidateSpace(catalog, shippedCatalog.instanceTypes, {
    cloud: 'aws',
    region: 'us-east-1',
    plan: 'premium',
    settings: { ...defaultProjectSettings(), minWorkers: 1, maxWorkers: 16 },
    current,
    observed: [current],
    baseCluster: flexible,
  });

  it('candidates keep the worker node type, and the explanation names why the others are left out', () => {
    const allowed = built.entries.filter((entry) => entry.allowed);
    expect(new Set(allowed.map((entry) => entry.shape.workerNodeType))).toEqual(new Set(['m5d.xlarge']));
    expect(new Set(allowed.map((entry) => entry.shape.workers)).size).toBeGreaterThan(2);
    const kept = built.filtered.find((outcome) => outcome.filter === flexibleNodeTypesKept);
    expect(kept?.dropped).toBeGreaterThan(0);
    expect(kept?.example).toMatch(
      /the job lists alternates of m5d\.xlarge \(m5ad\.xlarge\) in worker_node_type_flexibility; Setpoint keeps its node type and alternates as the team set them/,
    );
  });

  it('a past run on the alternate is in the space to learn from, never a choice', () => {
    // i3.xlarge with r5d.xlarge as its alternate: both priced, so the run on r5d can be learned from
    const onI3 = {
      ...flexible,
      node_type_id: 'i3.xlarge',
      worker_node_type_flexibility: { alternate_node_type_ids: ['r5d.xlarge'] },
    } as NewClusterSpec;
    const asked = shapeOfCluster(onI3, 'aws');
    const onAlternate = { ...asked, workerNodeType: 'r5d.xlarge' };
    const space = buildCandidateSpace(catalog, shippedCatalog.instanceTypes, {
      cloud: 'aws',
      region: 'us-east-1',
      plan: 'premium',
      // the project allows both types: the alternate's shapes are choices the flexible filter takes out
      settings: {
        ...defaultProjectSettings(),
        minWorkers: 1,
        maxWorkers: 16,
        allowedInstanceTypes: ['i3.xlarge', 'r5d.xlarge'],
      },
      current: asked,
      observed: [asked, onAlternate],
      baseCluster: onI3,
    });
    expect(space.byId.get(shapeId(onAlternate))).toMatchObject({ allowed: false, shape: onAlternate });
    const allowedTypes = new Set(
      space.entries.filter((entry) => entry.allowed).map((entry) => entry.shape.workerNodeType),
    );
    expect(allowedTypes).toEqual(new Set(['i3.xlarge']));
  });

  it('what is written leaves the alternates exactly as they were', () => {
    const resized = built.entries.find((entry) => entry.allowed && entry.shape.workers !== 4)!;
    const written = clusterOfShape(resized.shape, flexible) as Record<string, unknown>;
    expect(written.worker_node_type_flexibility).toEqual({ alternate_node_type_ids: ['m5ad.xlarge'] });
    expect(written.node_type_id).toBe('m5d.xlarge');
  });

  it('a run the node timeline says ran on the alternate is priced on the alternate', () => {
    const start = Date.UTC(2026, 0, 10);
    const end = start + 3_600_000;
    const profile = {
      application: { startTime: start, endTime: end, observedSpanMs: end - start },
      executors: {
        maxConcurrent: 4,
        timeline: [
          { id: 'driver', addedTime: start, removedTime: null },
          ...[1, 2, 3, 4].map((id) => ({ id: String(id), addedTime: start, removedTime: null })),
        ],
      },
    } as unknown as RunProfile;
    const ran = nodeTypesRanOf([
      { nodeType: 'm5d.xlarge', driver: true, nodes: 1, nodeMinutes: 60 },
      { nodeType: 'm5ad.xlarge', driver: false, nodes: 3, nodeMinutes: 180 },
      { nodeType: 'm5d.xlarge', driver: false, nodes: 1, nodeMinutes: 60 },
    ] as never);
    const timelineWith = (nodeTypesRan: typeof ran | undefined, priced = () => true) =>
      runTimeline(
        {
          profile,
          cluster: {
            source: 'cluster_report',
            cloud: 'aws',
            region: 'us-east-1',
            nodeTypeId: 'm5d.xlarge',
            driverNodeTypeId: 'm5d.xlarge',
            workers: 4,
            autoscale: null,
            photon: false,
            availability: 'ON_DEMAND',
            sparkVersion: '15.4.x-scala2.12',
          },
          clusterReport: { cluster: flexible, ...(nodeTypesRan && { node_types_ran: nodeTypesRan }) },
          workspace: null,
        },
        priced,
      );
    const workerTypes = (nodeTypesRan: typeof ran | undefined, priced = () => true) =>
      new Set(
        timelineWith(nodeTypesRan, priced)
          .nodes.filter((node) => node.role === 'worker')
          .map((node) => node.nodeType),
      );
    expect(workerTypes(ran)).toEqual(new Set(['m5ad.xlarge']));
    expect(workerTypes(undefined)).toEqual(new Set(['m5d.xlarge']));
    // an alternate the price catalog does not know is priced as the requested type
    expect(workerTypes(ran, () => false)).toEqual(new Set(['m5d.xlarge']));
    expect(timelineWith(ran).nodes.find((node) => node.role === 'driver')?.nodeType).toBe('m5d.xlarge');
  });

  it('names the type that ran most of a role’s node-minutes only when it is not the requested one', () => {
    const ran = [
      { node_type: 'm5ad.xlarge', driver: false, node_minutes: 30 },
      { node_type: 'm5d.xlarge', driver: false, node_minutes: 90 },
    ];
    expect(nodeTypeThatRan(ran, false, 'm5d.xlarge')).toBeNull();
    expect(nodeTypeThatRan(ran, false, 'm5.xlarge')).toBe('m5d.xlarge');
    expect(nodeTypeThatRan(ran, true, 'm5d.xlarge')).toBeNull();
    expect(nodeTypeThatRan(undefined, false, 'm5d.xlarge')).toBeNull();
  });
});
