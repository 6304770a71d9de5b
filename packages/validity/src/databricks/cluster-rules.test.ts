import { describe, expect, it } from 'vitest';
import { checkClusterSpec, checkJobSettings } from './job-settings-rules.js';
import type { DatabricksWorkspaceFacts, NodeTypeFacts } from './workspace-facts.js';

const nodeType = (id: string, overrides: Partial<NodeTypeFacts> = {}): NodeTypeFacts => ({
  nodeTypeId: id,
  cores: 4,
  memoryMb: 16_384,
  localDisks: 1,
  photonWorkerCapable: true,
  photonDriverCapable: true,
  graviton: false,
  supportsEbsVolumes: true,
  ...overrides,
});

const aws: DatabricksWorkspaceFacts = {
  cloud: 'aws',
  nodeTypes: [
    nodeType('m5d.xlarge'),
    nodeType('m5.xlarge', { localDisks: 0 }),
    nodeType('r5d.xlarge', { memoryMb: 32_768 }),
    nodeType('m5ad.xlarge', { memoryMb: 17_000 }),
    nodeType('c4.xlarge', { photonWorkerCapable: false, photonDriverCapable: false }),
  ],
};

const rules = (cluster: Record<string, unknown>, facts: DatabricksWorkspaceFacts = aws) =>
  checkClusterSpec(cluster, facts).map((violation) => violation.rule);

const base = { spark_version: '15.4.x-scala2.12', node_type_id: 'm5d.xlarge' };

describe('the Databricks cluster contract', () => {
  it('accepts a plain fixed-size and a well-bounded autoscaling cluster', () => {
    expect(rules({ ...base, num_workers: 4 })).toEqual([]);
    expect(rules({ ...base, autoscale: { min_workers: 1, max_workers: 2 } })).toEqual([]);
    expect(rules({ ...base, num_workers: 0 })).toEqual([]);
  });

  it('refuses autoscale bounds that are not strictly increasing, naming the rule and both bounds', () => {
    const [violation] = checkClusterSpec({ ...base, autoscale: { min_workers: 1, max_workers: 1 } }, aws);
    expect(violation).toMatchObject({
      rule: 'autoscale-bounds',
      field: 'autoscale.max_workers',
      refusedAt: 'request',
    });
    expect(violation?.message).toContain('max_workers (1) must be strictly greater than min_workers (1)');
    expect(rules({ ...base, autoscale: { min_workers: 4, max_workers: 2 } })).toEqual(['autoscale-bounds']);
    expect(rules({ ...base, autoscale: { min_workers: -1, max_workers: 2 } })).toEqual(['autoscale-bounds']);
  });

  it('refuses num_workers beside autoscale, and a negative size', () => {
    expect(rules({ ...base, num_workers: 2, autoscale: { min_workers: 1, max_workers: 3 } })).toEqual([
      'workers-or-autoscale',
    ]);
    expect(rules({ ...base, num_workers: -2 })).toEqual(['num-workers']);
  });

  it('takes numbers as decimal strings, as proto3 JSON does', () => {
    expect(rules({ ...base, autoscale: { min_workers: '2', max_workers: '6' } })).toEqual([]);
    expect(rules({ ...base, autoscale: { min_workers: '2', max_workers: '2' } })).toEqual([
      'autoscale-bounds',
    ]);
  });

  it('refuses node types the workspace does not offer, and judges none when it does not know them', () => {
    expect(rules({ ...base, node_type_id: 'Standard_F8s_v2', num_workers: 2 })).toEqual([
      'node-type-offered',
    ]);
    expect(rules({ ...base, driver_node_type_id: 'x9.huge', num_workers: 2 })).toEqual(['node-type-offered']);
    expect(
      rules({ ...base, node_type_id: 'x9.huge', num_workers: 2 }, { cloud: 'aws', nodeTypes: null }),
    ).toEqual([]);
  });

  it('refuses Photon on node types that cannot run it and on runtimes that cannot', () => {
    expect(rules({ ...base, node_type_id: 'c4.xlarge', num_workers: 2, runtime_engine: 'PHOTON' })).toEqual([
      'photon-node-types',
      'photon-node-types',
    ]);
    expect(
      rules({ ...base, num_workers: 2, runtime_engine: 'PHOTON', spark_version: '8.4.x-scala2.12' }),
    ).toEqual(['photon-runtime']);
    expect(
      rules({ ...base, num_workers: 2, runtime_engine: 'PHOTON', spark_version: '15.4.x-photon-scala2.12' }),
    ).toEqual(['photon-runtime']);
    expect(rules({ ...base, num_workers: 2, runtime_engine: 'TURBO' })).toEqual(['runtime-engine']);
  });

  it('refuses a node type beside an instance pool', () => {
    const facts = { ...aws, instancePools: new Map([['pool-1', { nodeTypeId: 'm5d.xlarge' }]]) };
    expect(rules({ ...base, instance_pool_id: 'pool-1', num_workers: 2 }, facts)).toEqual(['pool-node-type']);
    expect(
      rules({ spark_version: '15.4.x-scala2.12', instance_pool_id: 'pool-1', num_workers: 2 }, facts),
    ).toEqual([]);
    expect(
      rules({ spark_version: '15.4.x-scala2.12', instance_pool_id: 'pool-9', num_workers: 2 }, facts),
    ).toEqual(['pool-node-type']);
  });

  it('checks the attributes of both clouds: availability, first_on_demand, bids', () => {
    expect(rules({ ...base, num_workers: 2, aws_attributes: { availability: 'SPOT_AZURE' } })).toEqual([
      'availability',
    ]);
    expect(rules({ ...base, num_workers: 2, aws_attributes: { first_on_demand: -1 } })).toEqual([
      'first-on-demand',
    ]);
    expect(rules({ ...base, num_workers: 2, aws_attributes: { spot_bid_price_percent: 10_001 } })).toEqual([
      'spot-bid',
    ]);
    const azure: DatabricksWorkspaceFacts = { cloud: 'azure', nodeTypes: null };
    expect(
      rules(
        { ...base, num_workers: 2, azure_attributes: { availability: 'SPOT', spot_bid_max_price: 0 } },
        azure,
      ),
    ).toEqual(['availability', 'spot-bid']);
    expect(rules({ ...base, num_workers: 2, azure_attributes: { spot_bid_max_price: -1 } }, azure)).toEqual(
      [],
    );
  });

  it('checks EBS volumes: count, type, size by type, gp3 performance', () => {
    const ebs = (attributes: Record<string, unknown>) =>
      rules({ ...base, num_workers: 2, aws_attributes: attributes });
    expect(
      ebs({ ebs_volume_type: 'GENERAL_PURPOSE_SSD', ebs_volume_count: 2, ebs_volume_size: 100 }),
    ).toEqual([]);
    expect(
      ebs({ ebs_volume_type: 'GENERAL_PURPOSE_SSD', ebs_volume_count: 11, ebs_volume_size: 100 }),
    ).toEqual(['ebs-volumes']);
    expect(
      ebs({ ebs_volume_type: 'THROUGHPUT_OPTIMIZED_HDD', ebs_volume_count: 1, ebs_volume_size: 200 }),
    ).toEqual(['ebs-volumes']);
    expect(
      ebs({ ebs_volume_type: 'GENERAL_PURPOSE_SSD', ebs_volume_count: 1, ebs_volume_size: 5000 }),
    ).toEqual(['ebs-volumes']);
    expect(ebs({ ebs_volume_type: 'GP3', ebs_volume_count: 1, ebs_volume_size: 200 })).toEqual([
      'ebs-volumes',
    ]);
    const gp3 = { ebs_volume_type: 'GENERAL_PURPOSE_SSD', ebs_volume_count: 1, ebs_volume_size: 200 };
    expect(ebs({ ...gp3, ebs_volume_iops: 6000, ebs_volume_throughput: 500 })).toEqual([]);
    expect(ebs({ ...gp3, ebs_volume_iops: 3000, ebs_volume_throughput: 1000 })).toEqual([
      'ebs-gp3-performance',
    ]);
    expect(ebs({ ...gp3, ebs_volume_iops: 20_000 })).toEqual(['ebs-gp3-performance']);
    expect(
      ebs({
        ebs_volume_type: 'THROUGHPUT_OPTIMIZED_HDD',
        ebs_volume_count: 1,
        ebs_volume_size: 500,
        ebs_volume_iops: 3000,
      }),
    ).toEqual(['ebs-gp3-performance']);
  });

  it('tells an AWS node type without instance store to bring EBS volumes: refused at launch', () => {
    const [violation] = checkClusterSpec({ ...base, node_type_id: 'm5.xlarge', num_workers: 2 }, aws);
    expect(violation).toMatchObject({ rule: 'ebs-only-node-storage', refusedAt: 'launch' });
    expect(
      rules({
        ...base,
        node_type_id: 'm5.xlarge',
        num_workers: 2,
        aws_attributes: { ebs_volume_type: 'GENERAL_PURPOSE_SSD', ebs_volume_count: 1, ebs_volume_size: 100 },
      }),
    ).toEqual([]);
    expect(rules({ ...base, node_type_id: 'm5.xlarge', num_workers: 2, enable_elastic_disk: true })).toEqual(
      [],
    );
  });

  it('keeps flexible node types compatible with the primary', () => {
    const flexible = (alternates: string[]) =>
      rules({
        ...base,
        num_workers: 2,
        worker_node_type_flexibility: { alternate_node_type_ids: alternates },
      });
    expect(flexible(['m5ad.xlarge'])).toEqual([]);
    expect(flexible(['r5d.xlarge'])).toEqual(['flexible-node-types']);
    expect(flexible(['m5.xlarge'])).toEqual(['flexible-node-types']);
    expect(flexible(['z1d.xlarge'])).toEqual(['flexible-node-types']);
  });

  it('checks the compute policy the cluster names, dbus_per_hour included', () => {
    const facts: DatabricksWorkspaceFacts = {
      ...aws,
      policies: new Map([
        [
          'P1',
          {
            name: 'small jobs',
            definition: {
              node_type_id: { type: 'allowlist', values: ['m5d.xlarge'] },
              dbus_per_hour: { type: 'range', maxValue: 5 },
              'aws_attributes.availability': { type: 'fixed', value: 'SPOT_WITH_FALLBACK' },
            },
          },
        ],
      ]),
      dbusPerHour: () => 0.75,
    };
    const cluster = { ...base, policy_id: 'P1' };
    expect(rules({ ...cluster, num_workers: 4 }, facts)).toEqual([]);
    const refused = checkClusterSpec({ ...cluster, num_workers: 8, node_type_id: 'r5d.xlarge' }, facts);
    expect(refused.map((violation) => violation.field)).toEqual(['node_type_id', 'dbus_per_hour']);
    expect(refused[1]?.message).toBe(
      'Validation failed: dbus_per_hour 6.75 is above the maximum 5 (policy "small jobs").',
    );
    expect(rules({ ...cluster, num_workers: 2, policy_id: 'P9' }, facts)).toEqual(['policy']);
  });

  it('checks every cluster of job settings, naming where each sits', () => {
    const violations = checkJobSettings(
      {
        job_clusters: [
          { job_cluster_key: 'a', new_cluster: { ...base, autoscale: { min_workers: 2, max_workers: 2 } } },
        ],
        tasks: [{ task_key: 't', new_cluster: { ...base, num_workers: 2 } }],
      },
      aws,
    );
    expect(violations.map((violation) => violation.field)).toEqual([
      'job_clusters[0].new_cluster.autoscale.max_workers',
    ]);
  });
});
