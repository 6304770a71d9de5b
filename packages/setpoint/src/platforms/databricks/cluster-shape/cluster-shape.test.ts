import type { NewCluster } from '@setpoint/api-contract/databricks';
import { describe, expect, it } from 'vitest';
import { createCostModel } from '../../../cost/cost-model.js';
import { runCost } from '../../../cost/run-cost.js';
import type { RunProfile } from '../../../eventlog/run-profile.js';
import { shippedCatalog } from '../../../pricing/catalog/shipped-catalog.js';
import { createPriceCatalog } from '../../../pricing/price-catalog.js';
import type { ClusterFacts } from '../../../service/runs/run-records.js';
import { withManagedFields } from '../jobs/apply-cluster-change.js';
import { managedFieldValues } from '../jobs/managed-fields.js';
import { runTimeline } from '../runs/run-coster.js';
import { databricksBilling } from './billing.js';
import {
  type DatabricksClusterShape,
  defaultFirstOnDemand,
  shapeId,
  shapeOfCluster,
} from './cluster-shape.js';
import { costSpecOf } from './cost-spec.js';
import { jobFragmentOf } from './job-fragment.js';
import { parseNewCluster } from './parse-configuration.js';

/**
 * Golden cases of the one Databricks cluster-shape model: every consumer (recommender, coster, node
 * timeline, discovery, apply, the dashboard's diff) reads a `new_cluster` through it, so these are the
 * semantics of `availability` and `first_on_demand` everywhere.
 */

const facts = (overrides: Partial<ClusterFacts> = {}): ClusterFacts => ({
  source: 'eventlog',
  cloud: 'AWS',
  region: 'us-east-1',
  nodeTypeId: 'm5.xlarge',
  driverNodeTypeId: 'm5.xlarge',
  workers: 4,
  autoscale: null,
  photon: false,
  availability: null,
  sparkVersion: '15.4.x-scala2.12',
  ...overrides,
});

describe('shapeOfCluster', () => {
  it('defaults first_on_demand to 1 (the driver on-demand) on both clouds, as Databricks does', () => {
    const aws = shapeOfCluster(
      { node_type_id: 'm5.xlarge', num_workers: 4, aws_attributes: { availability: 'SPOT' } },
      'aws',
    );
    const azure = shapeOfCluster(
      { node_type_id: 'Standard_D4ds_v5', num_workers: 4, azure_attributes: { availability: 'SPOT_AZURE' } },
      'azure',
    );

    expect(defaultFirstOnDemand).toBe(1);
    expect(aws).toMatchObject({ market: 'spot', firstOnDemand: 1 });
    expect(azure).toMatchObject({ market: 'spot', firstOnDemand: 1 });
  });

  it('reads an explicit first_on_demand, 0 included, and needs none for an on-demand cluster', () => {
    const spec = (first_on_demand: number, availability: 'SPOT_WITH_FALLBACK' | 'ON_DEMAND'): NewCluster => ({
      node_type_id: 'm5.xlarge',
      num_workers: 4,
      aws_attributes: { availability, first_on_demand },
    });

    expect(shapeOfCluster(spec(0, 'SPOT_WITH_FALLBACK'), 'aws').firstOnDemand).toBe(0);
    expect(shapeOfCluster(spec(3, 'SPOT_WITH_FALLBACK'), 'aws').firstOnDemand).toBe(3);
    expect(shapeOfCluster(spec(3, 'ON_DEMAND'), 'aws')).toMatchObject({
      market: 'on-demand',
      firstOnDemand: 0,
    });
  });

  it("takes the cloud's own default market when availability is absent: AWS spot with fallback, Azure on-demand", () => {
    expect(shapeOfCluster({ node_type_id: 'm5.xlarge', num_workers: 2 }, 'aws').market).toBe(
      'spot-with-fallback',
    );
    expect(shapeOfCluster({ node_type_id: 'Standard_D4ds_v5', num_workers: 2 }, 'azure').market).toBe(
      'on-demand',
    );
  });

  it('maps every availability of both clouds to one market', () => {
    const market = (cloud: 'aws' | 'azure', availability: string) =>
      shapeOfCluster(null, cloud, facts({ availability })).market;

    expect(market('aws', 'SPOT_WITH_FALLBACK')).toBe('spot-with-fallback');
    expect(market('aws', 'SPOT')).toBe('spot');
    expect(market('aws', 'ON_DEMAND')).toBe('on-demand');
    expect(market('azure', 'SPOT_WITH_FALLBACK_AZURE')).toBe('spot-with-fallback');
    expect(market('azure', 'SPOT_AZURE')).toBe('spot');
    expect(market('azure', 'ON_DEMAND_AZURE')).toBe('on-demand');
  });

  it('lets runtime_engine decide Photon, and a legacy -photon- runtime when no engine is named', () => {
    const base = { node_type_id: 'm5.xlarge', num_workers: 2 };

    expect(shapeOfCluster({ ...base, spark_version: '13.3.x-photon-scala2.12' }, 'aws').photon).toBe(true);
    expect(
      shapeOfCluster({ ...base, spark_version: '13.3.x-photon-scala2.12', runtime_engine: 'STANDARD' }, 'aws')
        .photon,
    ).toBe(false);
    expect(shapeOfCluster({ ...base, runtime_engine: 'PHOTON' }, 'aws').photon).toBe(true);
  });

  it('fills what the spec leaves out from the run facts, and the autoscale maximum is the size', () => {
    const shape = shapeOfCluster({ autoscale: { min_workers: 2, max_workers: 10 } }, 'aws', facts());

    expect(shape).toEqual({
      cloud: 'aws',
      workerNodeType: 'm5.xlarge',
      driverNodeType: 'm5.xlarge',
      workers: 10,
      autoscale: { minWorkers: 2, maxWorkers: 10 },
      market: 'spot-with-fallback',
      firstOnDemand: 1,
      photon: false,
    });
  });

  it('refuses attributes the API contract does not allow, naming the field', () => {
    expect(() =>
      shapeOfCluster(
        parseNewCluster({ node_type_id: 'm5.xlarge', aws_attributes: { availability: 'CHEAP' } }),
        'aws',
      ),
    ).toThrow(/aws_attributes\.availability/);
  });
});

describe('one shape, every consumer', () => {
  const shapes: DatabricksClusterShape[] = [
    {
      cloud: 'aws',
      workerNodeType: 'r5.2xlarge',
      driverNodeType: 'm5.xlarge',
      workers: 6,
      autoscale: null,
      market: 'spot-with-fallback',
      firstOnDemand: 2,
      photon: true,
    },
    {
      cloud: 'azure',
      workerNodeType: 'Standard_E8ds_v5',
      driverNodeType: 'Standard_E8ds_v5',
      workers: 8,
      autoscale: { minWorkers: 2, maxWorkers: 8 },
      market: 'spot',
      firstOnDemand: 1,
      photon: false,
    },
    {
      cloud: 'aws',
      workerNodeType: 'm5.xlarge',
      driverNodeType: 'm5.xlarge',
      workers: 3,
      autoscale: null,
      market: 'on-demand',
      firstOnDemand: 0,
      photon: false,
    },
  ];

  it('writes a job fragment that parses back to the same shape', () => {
    for (const shape of shapes) {
      const fragment = jobFragmentOf(shape);
      expect(shapeOfCluster(parseNewCluster(fragment), shape.cloud)).toEqual(shape);
      expect(shapeId(shapeOfCluster(parseNewCluster(fragment), shape.cloud))).toBe(shapeId(shape));
    }
  });

  it('writes, against the job cluster, only what changes or what leaving out would change', () => {
    const job: NewCluster = {
      spark_version: '15.4.x-scala2.12',
      node_type_id: 'r5d.xlarge',
      num_workers: 8,
      aws_attributes: { availability: 'ON_DEMAND', first_on_demand: 1, zone_id: 'us-west-2a' },
    };
    const current = shapeOfCluster(job, 'aws');
    // the same cluster: only what the job states, as it states it (no runtime_engine, no driver)
    expect(jobFragmentOf(current, job)).toEqual({
      node_type_id: 'r5d.xlarge',
      num_workers: 8,
      aws_attributes: { availability: 'ON_DEMAND', first_on_demand: 1 },
    });
    // another node type keeps the driver it had: written, since leaving it out would follow the workers
    const wider = jobFragmentOf({ ...current, workerNodeType: 'm5d.2xlarge', workers: 4 }, job);
    expect(wider).toMatchObject({
      node_type_id: 'm5d.2xlarge',
      num_workers: 4,
      driver_node_type_id: 'r5d.xlarge',
    });
    expect(wider).not.toHaveProperty('runtime_engine');
    // a change of engine or market is written
    expect(jobFragmentOf({ ...current, photon: true }, job).runtime_engine).toBe('PHOTON');
    const spot = jobFragmentOf({ ...current, market: 'spot-with-fallback', firstOnDemand: 1 }, job);
    expect(spot.aws_attributes).toEqual({ availability: 'SPOT_WITH_FALLBACK', first_on_demand: 1 });
    // a job with no attributes on AWS runs spot with fallback: staying there writes none
    const bare: NewCluster = { node_type_id: 'm5.xlarge', num_workers: 2 };
    expect(jobFragmentOf(shapeOfCluster(bare, 'aws'), bare)).toEqual({
      node_type_id: 'm5.xlarge',
      num_workers: 2,
    });
    // a legacy Photon runtime stays Photon without a runtime_engine field
    const legacy: NewCluster = { ...bare, spark_version: '13.3.x-photon-scala2.12' };
    expect(jobFragmentOf(shapeOfCluster(legacy, 'aws'), legacy)).not.toHaveProperty('runtime_engine');
    expect(jobFragmentOf({ ...shapeOfCluster(legacy, 'aws'), photon: false }, legacy).runtime_engine).toBe(
      'STANDARD',
    );
  });

  it('merges read-only to the same cluster as a copying merge, and changes nothing of the job cluster', () => {
    const job: NewCluster = {
      spark_version: '13.3.x-photon-scala2.12',
      node_type_id: 'r5d.xlarge',
      autoscale: { min_workers: 2, max_workers: 8 },
      spark_conf: { 'spark.sql.shuffle.partitions': '400' },
      aws_attributes: { availability: 'ON_DEMAND', first_on_demand: 1, zone_id: 'us-west-2a' },
    };
    const before = structuredClone(job);
    for (const shape of shapes.filter((entry) => entry.cloud === 'aws')) {
      const fragment = jobFragmentOf(shape);
      const copied = withManagedFields(job, fragment, { maintainScalingType: false });
      const read = withManagedFields(job, fragment, { maintainScalingType: false, readOnly: true });
      expect(read).toEqual(copied);
      expect(managedFieldValues(read)).toEqual(managedFieldValues(copied));
      // the copying merge owns its nested values; the read-only one shares what it does not manage
      expect(copied.spark_conf).not.toBe(job.spark_conf);
      expect(read.spark_conf).toBe(job.spark_conf);
    }
    expect(job).toEqual(before);
  });

  it('gives the cost engine the market and first_on_demand the fragment names', () => {
    const spec = costSpecOf(shapes[0] as DatabricksClusterShape, {
      region: 'us-east-1',
      plan: 'premium',
      compute: 'jobs',
    });

    expect(spec).toMatchObject({
      market: 'spot-with-fallback',
      firstOnDemand: 2,
      workerNodeType: 'r5.2xlarge',
    });
    expect(spec.billing).toBe(databricksBilling({ plan: 'premium', compute: 'jobs', photon: true }));
    expect(spec.billing.nodeFees.map((fee) => fee.price)).toEqual([
      { list: 'dbu', plan: 'premium', compute: 'jobs', photon: true },
    ]);
  });

  it('prices an observed run as the recommender prices the same cluster for the same time', () => {
    const catalog = createPriceCatalog([shippedCatalog]);
    const model = createCostModel(catalog);
    const shape = shapes[0] as DatabricksClusterShape;
    const hour = 3_600_000;
    const profile = {
      application: { startTime: 0, endTime: hour, observedSpanMs: hour },
      executors: {
        maxConcurrent: shape.workers,
        timeline: Array.from({ length: shape.workers }, (_, i) => ({
          id: String(i),
          addedTime: 0,
          removedTime: hour,
        })),
      },
    } as unknown as RunProfile;
    const cluster = { node_type_id: shape.workerNodeType, ...jobFragmentOf(shape) };

    const observed = runCost(
      model,
      runTimeline({
        profile,
        cluster: facts({ workers: null }),
        clusterReport: { plan_type: 'Premium', compute_type: 'Jobs Compute', cluster },
        workspace: null,
      }),
    );
    const predicted = model
      .rateCluster(costSpecOf(shape, { region: 'us-east-1', plan: 'premium', compute: 'jobs' }))
      .usdPerHour(shape.workers);

    expect(observed.total).toBeCloseTo(predicted.expected, 9);
    expect(observed.low).toBeCloseTo(predicted.low, 9);
    expect(observed.high).toBeCloseTo(predicted.high, 9);
  });
  it("prices a run's own EBS volumes as the candidates' are, and keeps them out of the shape's id", () => {
    const catalog = createPriceCatalog([shippedCatalog]);
    const model = createCostModel(catalog);
    const hour = 3_600_000;
    const workers = 3;
    const profile = {
      application: { startTime: 0, endTime: hour, observedSpanMs: hour },
      executors: {
        maxConcurrent: workers,
        timeline: Array.from({ length: workers }, (_, i) => ({
          id: String(i),
          addedTime: 0,
          removedTime: hour,
        })),
      },
    } as unknown as RunProfile;
    const bare: NewCluster = {
      spark_version: '15.4.x-scala2.12',
      node_type_id: 'm5.xlarge',
      num_workers: workers,
      aws_attributes: { availability: 'ON_DEMAND', first_on_demand: 1 },
    };
    const withEbs = (attributes: Record<string, unknown>): NewCluster => ({
      ...bare,
      aws_attributes: { ...bare.aws_attributes, ...attributes } as NewCluster['aws_attributes'],
    });
    const costOf = (cluster: NewCluster) =>
      runCost(
        model,
        runTimeline({
          profile,
          cluster: facts({ workers: null }),
          clusterReport: { plan_type: 'Premium', compute_type: 'Jobs Compute', cluster },
          workspace: null,
        }),
      );
    const ssd = withEbs({
      ebs_volume_type: 'GENERAL_PURPOSE_SSD',
      ebs_volume_count: 2,
      ebs_volume_size: 250,
    });
    const hdd = withEbs({
      ebs_volume_type: 'THROUGHPUT_OPTIMIZED_HDD',
      ebs_volume_count: 1,
      ebs_volume_size: 500,
    });

    expect(shapeOfCluster(ssd, 'aws').jobVolumes).toEqual([{ type: 'gp3', sizeGb: 250, count: 2 }]);
    expect(shapeOfCluster(hdd, 'aws').jobVolumes).toEqual([{ type: 'st1', sizeGb: 500, count: 1 }]);
    expect(shapeOfCluster(bare, 'aws').jobVolumes).toBeUndefined();
    // the job's own volumes are not Setpoint's choice: the same cluster, the same id
    expect(shapeId(shapeOfCluster(ssd, 'aws'))).toBe(shapeId(shapeOfCluster(bare, 'aws')));

    // us-east-1: gp3 $0.08 and st1 $0.045 per GB-month (730 h), on the driver and every worker for the hour
    const nodes = workers + 1;
    const withoutEbs = costOf(bare).total;
    expect(costOf(ssd).total - withoutEbs).toBeCloseTo((nodes * 2 * 250 * 0.08) / 730, 9);
    expect(costOf(hdd).total - withoutEbs).toBeCloseTo((nodes * 500 * 0.045) / 730, 9);
    expect(costOf(ssd).components.map((component) => component.description)).toContain('gp3 volumes');

    // and the recommender prices the same cluster the same way
    const predicted = model
      .rateCluster(
        costSpecOf(shapeOfCluster(ssd, 'aws'), { region: 'us-east-1', plan: 'premium', compute: 'jobs' }),
      )
      .usdPerHour(workers);
    expect(costOf(ssd).total).toBeCloseTo(predicted.expected, 9);
  });
});
