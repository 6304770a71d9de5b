import { defaultProjectSettings, type ProjectSettings } from '@setpoint/api-contract';
import {
  checkClusterSpec,
  type DatabricksWorkspaceFacts,
  launchableNodeTypes,
} from '@setpoint/validity/databricks';
import { describe, expect, it } from 'vitest';
import { createCostModel } from '../../../cost/cost-model.js';
import { shippedCatalog } from '../../../pricing/catalog/shipped-catalog.js';
import { createPriceCatalog } from '../../../pricing/price-catalog.js';
import type { NewClusterSpec } from '../api/schema.js';
import { buildCandidateSpace, type SpaceContext } from './candidates.js';
import { type DatabricksClusterShape, describeShape, shapeOfCluster } from './cluster-shape.js';
import { costSpecOf } from './cost-spec.js';
import { ebsStorageFor } from './ebs-storage.js';
import { clusterOfShape } from './validity-filters.js';

const catalog = createPriceCatalog([shippedCatalog]);
const costModel = createCostModel(catalog);
const gib = 1024 ** 3;

/** The job as it runs: r5d.xlarge (instance store), spot with fallback, three nodes kept on-demand. */
const baseCluster: NewClusterSpec = {
  spark_version: '15.4.x-scala2.12',
  node_type_id: 'r5d.xlarge',
  driver_node_type_id: 'r5d.2xlarge',
  num_workers: 8,
  aws_attributes: { availability: 'SPOT_WITH_FALLBACK', first_on_demand: 3 },
};
const current = shapeOfCluster(baseCluster, 'aws');

function space(settings: Partial<ProjectSettings>, context: Partial<SpaceContext> = {}) {
  return buildCandidateSpace(catalog, shippedCatalog.instanceTypes, {
    cloud: 'aws',
    region: 'us-east-1',
    plan: 'premium',
    settings: { ...defaultProjectSettings(), ...settings },
    current,
    observed: [current],
    baseCluster,
    ...context,
  });
}
const allowedShapes = (built: ReturnType<typeof space>) =>
  built.entries.filter((entry) => entry.allowed).map((entry) => entry.shape);

/** The AWS node types of the shipped catalog as `clusters/list-node-types` describes them (local disks included). */
const workspaceFacts: DatabricksWorkspaceFacts = {
  cloud: 'aws',
  nodeTypes: launchableNodeTypes(
    shippedCatalog.instanceTypes
      .filter((entry) => entry.cloud === 'aws')
      .map((entry) => ({
        node_type_id: entry.instanceType,
        num_cores: entry.vcpus,
        memory_mb: entry.memoryGib * 1024,
        support_ebs_volumes: true,
        node_instance_type: {
          instance_type_id: entry.instanceType,
          local_disks: entry.localNvmeGb > 0 ? 1 : 0,
          local_disk_size_gb: entry.localNvmeGb,
        },
      })),
  ),
};

describe('the driver and first_on_demand: kept as the job sets them', () => {
  it('every spot candidate keeps first_on_demand 3 and the r5d.2xlarge driver', () => {
    const shapes = allowedShapes(space({ spotPolicy: 'spot-allowed' }));
    const onSpot = shapes.filter((shape) => shape.market !== 'on-demand');
    expect(onSpot.length).toBeGreaterThan(10);
    expect(new Set(onSpot.map((shape) => shape.firstOnDemand))).toEqual(new Set([3]));
    expect(new Set(shapes.map((shape) => shape.driverNodeType))).toEqual(new Set(['r5d.2xlarge']));
  });

  it('a written candidate changes neither field: the fragment leaves them to the job', () => {
    const other = allowedShapes(space({ spotPolicy: 'spot-allowed' })).find(
      (shape) => shape.workerNodeType === 'm5d.xlarge' && shape.market === 'spot-with-fallback',
    );
    const written = clusterOfShape(other!, baseCluster);
    expect(written.aws_attributes?.first_on_demand).toBe(3);
    expect(written.driver_node_type_id).toBe('r5d.2xlarge');
  });

  it('never moves the driver onto spot: a job all on-demand gets the driver on-demand on a spot market', () => {
    const onDemand = shapeOfCluster({ ...baseCluster, aws_attributes: { availability: 'ON_DEMAND' } }, 'aws');
    const shapes = allowedShapes(
      space(
        { spotPolicy: 'spot-allowed', forceOnDemandDriver: false },
        { current: onDemand, observed: [onDemand] },
      ),
    );
    expect(
      new Set(shapes.filter((shape) => shape.market !== 'on-demand').map((shape) => shape.firstOnDemand)),
    ).toEqual(new Set([1]));
  });

  it('a job whose driver runs on spot keeps it there unless the project keeps the driver on-demand', () => {
    const driverOnSpot = shapeOfCluster(
      { ...baseCluster, aws_attributes: { availability: 'SPOT', first_on_demand: 0 } },
      'aws',
    );
    const firstOnDemands = (forceOnDemandDriver: boolean) =>
      new Set(
        allowedShapes(
          space(
            { spotPolicy: 'spot-allowed', forceOnDemandDriver },
            { current: driverOnSpot, observed: [driverOnSpot] },
          ),
        )
          .filter((shape) => shape.market !== 'on-demand')
          .map((shape) => shape.firstOnDemand),
      );
    expect(firstOnDemands(false)).toEqual(new Set([0]));
    expect(firstOnDemands(true)).toEqual(new Set([1]));
  });
});

describe('EBS volumes for a node type without instance store', () => {
  const evidence = { diskSpillBytes: 600 * gib, shuffleWriteBytes: 1000 * gib };
  const withEvidence = space({ allowedInstanceFamilies: ['r5', 'r5d'] }, { diskEvidence: evidence });
  const ebsOnly = allowedShapes(withEvidence).filter((shape) => shape.workerNodeType.startsWith('r5.'));

  it('a candidate on r5 carries general purpose SSD volumes sized from the run’s spill and shuffle', () => {
    expect(ebsOnly.length).toBeGreaterThan(0);
    for (const shape of ebsOnly) {
      // 1600 GiB written over the candidate's workers, ×2 room, in 50 GiB steps, 100–4096 GiB a volume
      const perNode = ((1600 / shape.workers) * 2) / (shape.storage?.count ?? 1);
      expect(shape.storage?.volumeType).toBe('GENERAL_PURPOSE_SSD');
      expect(shape.storage?.sizeGib).toBeGreaterThanOrEqual(Math.min(4096, Math.max(100, perNode)));
      expect(shape.storage?.sizeGib).toBeLessThan(Math.max(100, perNode) + 50);
    }
    const four = ebsOnly.find((shape) => shape.workers === 4);
    expect(four?.storage).toMatchObject({ count: 1, sizeGib: 800 });
    // the node types with their own disks get none
    for (const shape of allowedShapes(withEvidence).filter((s) => s.workerNodeType.startsWith('r5d.')))
      expect(shape.storage ?? null).toBeNull();
  });

  it('splits what one volume cannot hold, and sizes a job that wrote nothing at the smallest volume', () => {
    expect(ebsStorageFor({ diskSpillBytes: 0, shuffleWriteBytes: 9000 * gib }, 2)).toMatchObject({
      count: 3,
      sizeGib: 3000,
    });
    expect(ebsStorageFor({ diskSpillBytes: 0, shuffleWriteBytes: 0 }, 8)).toMatchObject({
      count: 1,
      sizeGib: 100,
    });
  });

  it('is written, priced and stated, and what is written launches where the bare node type would not', () => {
    const shape = ebsOnly.find((candidate) => candidate.workers === 4)!;
    const written = clusterOfShape(shape, baseCluster);
    expect(written.aws_attributes).toMatchObject({
      ebs_volume_type: 'GENERAL_PURPOSE_SSD',
      ebs_volume_count: 1,
      ebs_volume_size: 800,
    });
    expect(checkClusterSpec(written, workspaceFacts)).toEqual([]);
    const bare = clusterOfShape({ ...shape, storage: null }, baseCluster);
    expect(checkClusterSpec(bare, workspaceFacts).map((violation) => violation.rule)).toEqual([
      'ebs-only-node-storage',
    ]);

    const rate = (candidate: DatabricksClusterShape) =>
      costModel
        .rateCluster(costSpecOf(candidate, { region: 'us-east-1', plan: 'premium', compute: 'jobs' }))
        .usdPerHour(candidate.workers).expected;
    expect(rate(shape)).toBeGreaterThan(rate({ ...shape, storage: null }));

    expect(describeShape(shape)).toMatch(
      /^4 × r5\.\w+ with 1 × 800 GiB EBS per node \(no local disk; the run spilled and shuffled 400\.0 GiB a node on 4 nodes; ×2\), [a-z -]+$/,
    );
  });

  it('keeps the job’s own volumes, and never adds any to a node type the job already runs on', () => {
    const ownVolumes = space(
      { allowedInstanceFamilies: ['r5', 'r5d'] },
      {
        diskEvidence: evidence,
        baseCluster: {
          ...baseCluster,
          aws_attributes: {
            ...baseCluster.aws_attributes,
            ebs_volume_count: 1,
            ebs_volume_size: 200,
            ebs_volume_type: 'GENERAL_PURPOSE_SSD',
          },
        },
      },
    );
    expect(allowedShapes(ownVolumes).every((shape) => (shape.storage ?? null) === null)).toBe(true);

    const onR5 = shapeOfCluster({ ...baseCluster, node_type_id: 'r5.xlarge' }, 'aws');
    const ranOnR5 = space(
      { allowedInstanceFamilies: ['r5', 'r5d'] },
      { diskEvidence: evidence, current: onR5, observed: [onR5] },
    );
    const sameType = allowedShapes(ranOnR5).filter((shape) => shape.workerNodeType === 'r5.xlarge');
    expect(sameType.length).toBeGreaterThan(0);
    expect(sameType.every((shape) => (shape.storage ?? null) === null)).toBe(true);
  });
});
