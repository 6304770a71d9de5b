import { defaultProjectSettings } from '@setpoint/api-contract';
import { checkClusterSpec, launchableNodeTypes } from '@setpoint/validity/databricks';
import { describe, expect, it } from 'vitest';
import { createCostModel } from '../../../cost/cost-model.js';
import { shippedCatalog } from '../../../pricing/catalog/shipped-catalog.js';
import { createPriceCatalog } from '../../../pricing/price-catalog.js';
import type { NewClusterSpec } from '../api/schema.js';
import { buildCandidateSpace } from './candidates.js';
import { describeShape, shapeOfCluster } from './cluster-shape.js';
import { costSpecOf } from './cost-spec.js';
import { type DiskTraffic, gp3PerformanceFor, instanceEbsMibps } from './ebs-performance.js';
import { clusterOfShape } from './validity-filters.js';

const catalog = createPriceCatalog([shippedCatalog]);
const costModel = createCostModel(catalog);
const gib = 1024 ** 3;
const entry = (type: string) =>
  shippedCatalog.instanceTypes.find((e) => e.cloud === 'aws' && e.instanceType === type)!;

/** The spill-heavy sort as the Job Bank runs it: 8 × m5.2xlarge with its own 1 × 100 GiB gp3 volume. */
const baseCluster: NewClusterSpec = {
  spark_version: '15.4.x-scala2.12',
  node_type_id: 'm5.2xlarge',
  num_workers: 8,
  aws_attributes: {
    availability: 'ON_DEMAND',
    ebs_volume_type: 'GENERAL_PURPOSE_SSD',
    ebs_volume_count: 1,
    ebs_volume_size: 100,
  },
};
const current = shapeOfCluster(baseCluster, 'aws');
/** 300 GiB through the disks of 8 nodes in 10 minutes of jobs: 37.5 GiB a node, 307 s at 125 MiB/s (51%). */
const diskBound: DiskTraffic = {
  diskSpillBytes: 100 * gib,
  shuffleWriteBytes: 50 * gib,
  shuffleReadBytes: 50 * gib,
  executorTimeMs: 600_000,
  nodes: 8,
};
const quiet: DiskTraffic = {
  ...diskBound,
  diskSpillBytes: 0,
  shuffleWriteBytes: 4 * gib,
  shuffleReadBytes: 4 * gib,
};

function space(traffic: DiskTraffic) {
  return buildCandidateSpace(
    catalog,
    shippedCatalog.instanceTypes,
    {
      cloud: 'aws',
      region: 'us-east-1',
      plan: 'premium',
      settings: {
        ...defaultProjectSettings(),
        spotPolicy: 'on-demand-only',
        allowedInstanceTypes: ['m5.xlarge', 'm5.2xlarge', 'm5.4xlarge', 'm5d.2xlarge'],
      },
      current,
      observed: [current],
      baseCluster,
      diskEvidence: {
        diskSpillBytes: traffic.diskSpillBytes,
        shuffleWriteBytes: traffic.shuffleWriteBytes,
        traffic,
      },
    },
    costModel,
  );
}
const allowed = (built: ReturnType<typeof space>, type: string) =>
  built.entries.filter((e) => e.allowed && e.shape.workerNodeType === type);

describe('gp3 throughput and IOPS from the run’s disk traffic', () => {
  it('buys throughput for a disk-bound run within gp3’s and the instance’s limits, with the IOPS gp3 needs', () => {
    const performance = gp3PerformanceFor(diskBound, 125, entry('m5.4xlarge'), 1)!;
    // wanted: 37.5 GiB in 60 s = 640 MiB/s; the m5.4xlarge reaches EBS at 4,750 Mbps ≈ 566 MiB/s
    expect(instanceEbsMibps(entry('m5.4xlarge'))).toBeCloseTo(566.2, 1);
    expect(performance.throughputMibps).toBe(550);
    // 550 MiB/s needs 2,200 IOPS at gp3's 0.25 MiB/s per IOPS: the included 3,000 hold it
    expect(performance.iops).toBe(3000);
    expect(performance.basis).toMatch(
      /moved 37\.5 GiB a node through its disks: 51% of its job time at 125 MiB\/s/,
    );
    // an xlarge reaches EBS at 1,150 Mbps ≈ 137 MiB/s: more than gp3's 125 would be paid for and unused
    expect(gp3PerformanceFor(diskBound, 125, entry('m5.xlarge'), 1)).toBeNull();
    // 1000 MiB/s, gp3's most, needs 4,000 IOPS (at most 0.25 MiB/s per IOPS); a 12xlarge reaches 9,500 Mbps
    const heavy = { ...diskBound, diskSpillBytes: 1000 * gib, nodes: 2 };
    expect(gp3PerformanceFor(heavy, 125, { vcpus: 48 }, 1)).toMatchObject({
      throughputMibps: 1000,
      iops: 4000,
    });
    // a run whose disks were idle most of the time gets nothing
    expect(gp3PerformanceFor(quiet, 125, entry('m5.4xlarge'), 1)).toBeNull();
  });

  it('writes the job’s own volume back tuned where the node can use it, and keeps it where it cannot or need not', () => {
    const built = space(diskBound);
    const onTwoX = allowed(built, 'm5.2xlarge').find((e) => e.shape.workers === 8)!;
    expect(onTwoX.shape.storage).toMatchObject({ count: 1, sizeGib: 100, throughputMibps: 250, iops: 3000 });
    expect(onTwoX.shape.jobVolumes).toBeUndefined();
    expect(describeShape(onTwoX.shape)).toMatch(
      /with 1 × 100 GiB EBS per node at 250 MiB\/s and 3000 IOPS \(the run moved/,
    );
    const written = clusterOfShape(onTwoX.shape, baseCluster);
    expect(written.aws_attributes).toMatchObject({
      ebs_volume_type: 'GENERAL_PURPOSE_SSD',
      ebs_volume_count: 1,
      ebs_volume_size: 100,
      ebs_volume_throughput: 250,
      ebs_volume_iops: 3000,
    });
    // Databricks' rules accept it
    const facts = {
      cloud: 'aws' as const,
      nodeTypes: launchableNodeTypes(
        shippedCatalog.instanceTypes
          .filter((e) => e.cloud === 'aws')
          .map((e) => ({
            node_type_id: e.instanceType,
            num_cores: e.vcpus,
            memory_mb: e.memoryGib * 1024,
            support_ebs_volumes: true,
            node_instance_type: {
              instance_type_id: e.instanceType,
              local_disks: e.localNvmeGb > 0 ? 1 : 0,
              local_disk_size_gb: e.localNvmeGb,
            },
          })),
      ),
    };
    expect(checkClusterSpec(written, facts)).toEqual([]);
    // priced: 125 MiB/s above gp3's included 125 on each of the 9 nodes (the driver has the volumes too), $0.04 a MiB/s-month
    const billing = { region: 'us-east-1', plan: 'premium' as const, compute: 'jobs' as const };
    const kept = { ...onTwoX.shape, storage: null, jobVolumes: current.jobVolumes };
    const extra =
      costModel.rateCluster(costSpecOf(onTwoX.shape, billing)).usdPerHour(8).expected -
      costModel.rateCluster(costSpecOf(kept, billing)).usdPerHour(8).expected;
    expect(extra).toBeCloseTo((9 * 125 * 0.04) / 730, 4);
    // the xlarge keeps the job's volume as it is (its EBS bandwidth is about gp3's baseline)
    for (const e of allowed(built, 'm5.xlarge')) {
      expect(e.shape.storage).toBeNull();
      expect(e.shape.jobVolumes).toEqual(current.jobVolumes);
    }
    // a node type with instance store keeps what the job has
    for (const e of allowed(built, 'm5d.2xlarge')) expect(e.shape.storage).toBeNull();
    // a run whose disks are not its bottleneck changes no candidate's volumes
    for (const e of space(quiet).entries.filter((x) => x.allowed)) {
      expect(e.shape.storage).toBeNull();
      expect(e.shape.jobVolumes).toEqual(current.jobVolumes);
    }
  });
});
