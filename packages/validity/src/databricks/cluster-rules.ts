import { isIntegerIn, isObject, type JsonObject, numberOf, objectAt, shown } from '../json-fields.js';
import type { Finding, ValidityRule } from '../rule.js';
import { policyFindings } from './policy-rules.js';
import type { DatabricksWorkspaceFacts, NodeTypeFacts } from './workspace-facts.js';

/** A `new_cluster` (Clusters API `ClusterSpec`) as sent in jobs/create, update, reset and runs/submit. */
export type ClusterSpecJson = JsonObject;

type ClusterRule = ValidityRule<ClusterSpecJson, DatabricksWorkspaceFacts>;

/** Sources, once: the Clusters API reference as the official SDKs carry it (`databricks-sdk` `compute.py`). */
const clusterSpec = 'Databricks Clusters API, ClusterSpec';
const awsAttributes = 'Databricks Clusters API, AwsAttributes';
const azureAttributes = 'Databricks Clusters API, AzureAttributes';

const awsAvailabilities = ['SPOT', 'ON_DEMAND', 'SPOT_WITH_FALLBACK'];
const azureAvailabilities = ['SPOT_AZURE', 'ON_DEMAND_AZURE', 'SPOT_WITH_FALLBACK_AZURE'];
const runtimeEngines = ['STANDARD', 'PHOTON', 'NULL'];
const ebsVolumeTypes = ['GENERAL_PURPOSE_SSD', 'THROUGHPUT_OPTIMIZED_HDD'];
/** Size in GiB each EBS volume type takes (`AwsAttributes.ebs_volume_size`). */
const ebsSizeRanges: Record<string, { min: number; max: number }> = {
  GENERAL_PURPOSE_SSD: { min: 100, max: 4096 },
  THROUGHPUT_OPTIMIZED_HDD: { min: 500, max: 4096 },
};
/** gp3 limits AWS states for `Iops` and `Throughput` (EC2 `EbsBlockDevice`), and their ratio. */
export const gp3Limits = {
  minIops: 3000,
  maxIops: 16_000,
  minThroughput: 125,
  maxThroughput: 1000,
  throughputPerIops: 0.25,
};
/** Databricks Runtime from which Photon runs. */
const photonMinimumRuntime = { major: 9, minor: 1 };

const present = (cluster: ClusterSpecJson, key: string) =>
  cluster[key] !== undefined && cluster[key] !== null;
const finding = (field: string, message: string): Finding => ({ field, message });

/** The node type facts of an id, when the workspace's node types are known. */
function nodeTypeOf(facts: DatabricksWorkspaceFacts, id: unknown): NodeTypeFacts | undefined {
  return typeof id === 'string' ? facts.nodeTypes?.find((entry) => entry.nodeTypeId === id) : undefined;
}

/** The worker and driver node types a cluster names (the driver defaults to the worker's). */
export function namedNodeTypes(cluster: ClusterSpecJson): { worker: unknown; driver: unknown } {
  return { worker: cluster.node_type_id, driver: cluster.driver_node_type_id ?? cluster.node_type_id };
}

/** Photon when the engine says so; a legacy `-photon-` runtime counts when no engine is named. */
export function runsPhoton(cluster: ClusterSpecJson): boolean {
  if (cluster.runtime_engine === 'PHOTON') return true;
  if (cluster.runtime_engine === 'STANDARD') return false;
  return typeof cluster.spark_version === 'string' && cluster.spark_version.includes('-photon-');
}

function enumFinding(field: string, value: unknown, allowed: readonly string[]): Finding[] {
  if (value === undefined || value === null || allowed.includes(value as string)) return [];
  return [
    finding(field, `Invalid value ${shown(value)} for ${field}: must be one of ${allowed.join(', ')}.`),
  ];
}

const workersOrAutoscale: ClusterRule = {
  name: 'workers-or-autoscale',
  requirement: 'A cluster is sized by `num_workers` or by `autoscale`, not both.',
  source:
    'Databricks API definitions: the cluster size is a oneof of `num_workers` and `autoscale` (Databricks SDK for JavaScript v2, `size: { $case: "numWorkers" } | { $case: "autoscale" }`)',
  refusedAt: 'request',
  check(cluster) {
    return present(cluster, 'num_workers') && present(cluster, 'autoscale')
      ? [finding('num_workers', 'Only one of num_workers and autoscale may be specified.')]
      : [];
  },
};

const workerCount: ClusterRule = {
  name: 'num-workers',
  requirement: '`num_workers` is a whole number, 0 or more.',
  source: `${clusterSpec}.num_workers`,
  refusedAt: 'request',
  check(cluster) {
    if (!present(cluster, 'num_workers') || isIntegerIn(cluster.num_workers, 0)) return [];
    return [
      finding(
        'num_workers',
        `Invalid num_workers ${shown(cluster.num_workers)}: must be an integer of at least 0.`,
      ),
    ];
  },
};

const autoscaleBounds: ClusterRule = {
  name: 'autoscale-bounds',
  requirement:
    '`autoscale.min_workers` is 0 or more and `autoscale.max_workers` is strictly greater than it.',
  source:
    'Databricks Clusters API, AutoScale.max_workers: "Note that max_workers must be strictly greater than min_workers"',
  refusedAt: 'request',
  check(cluster) {
    if (!present(cluster, 'autoscale')) return [];
    const autoscale = objectAt(cluster, 'autoscale');
    if (!isIntegerIn(autoscale.min_workers, 0))
      return [
        finding(
          'autoscale.min_workers',
          `Invalid autoscale.min_workers ${shown(autoscale.min_workers)}: must be an integer of at least 0.`,
        ),
      ];
    if (!isIntegerIn(autoscale.max_workers, 1))
      return [
        finding(
          'autoscale.max_workers',
          `Invalid autoscale.max_workers ${shown(autoscale.max_workers)}: must be a positive integer.`,
        ),
      ];
    const min = numberOf(autoscale.min_workers);
    const max = numberOf(autoscale.max_workers);
    return max > min
      ? []
      : [
          finding(
            'autoscale.max_workers',
            `Invalid autoscale: max_workers (${max}) must be strictly greater than min_workers (${min}).`,
          ),
        ];
  },
};

const nodeTypeOffered: ClusterRule = {
  name: 'node-type-offered',
  requirement: '`node_type_id` and `driver_node_type_id` are node types the workspace can launch.',
  source: `${clusterSpec}.node_type_id: "A list of available node types can be retrieved by using the clusters/listNodeTypes API call"`,
  refusedAt: 'request',
  check(cluster, facts) {
    if (!facts.nodeTypes) return [];
    const findings: Finding[] = [];
    for (const field of ['node_type_id', 'driver_node_type_id'] as const) {
      const id = cluster[field];
      if (id === undefined || id === null || nodeTypeOf(facts, id)) continue;
      findings.push(finding(field, `Node type ${shown(id)} is not supported in this workspace.`));
    }
    return findings;
  },
};

const poolNodeType: ClusterRule = {
  name: 'pool-node-type',
  requirement:
    'A cluster on an instance pool takes its node types from the pool: `node_type_id` is not given beside `instance_pool_id`, nor `driver_node_type_id` beside `driver_instance_pool_id`; the pools exist.',
  source: `${clusterSpec}.instance_pool_id and driver_instance_pool_id; the refusal as Databricks answers it is quoted in databricks/cli#3833`,
  refusedAt: 'request',
  check(cluster, facts) {
    const findings: Finding[] = [];
    const pairs = [
      ['instance_pool_id', 'node_type_id'],
      ['driver_instance_pool_id', 'driver_node_type_id'],
    ] as const;
    for (const [poolField, nodeField] of pairs) {
      const poolId = cluster[poolField];
      if (poolId === undefined || poolId === null) continue;
      if (facts.instancePools && !facts.instancePools.has(String(poolId)))
        findings.push(finding(poolField, `Instance pool ${shown(poolId)} does not exist.`));
      if (present(cluster, nodeField))
        findings.push(
          finding(
            nodeField,
            `The field '${nodeField}' cannot be supplied when an instance pool ID is provided.`,
          ),
        );
    }
    return findings;
  },
};

const runtimeEngine: ClusterRule = {
  name: 'runtime-engine',
  requirement: '`runtime_engine` is STANDARD, PHOTON or NULL.',
  source: `${clusterSpec}.runtime_engine (enum RuntimeEngine)`,
  refusedAt: 'request',
  check: (cluster) => enumFinding('runtime_engine', cluster.runtime_engine, runtimeEngines),
};

const photonRuntime: ClusterRule = {
  name: 'photon-runtime',
  requirement:
    '`runtime_engine: PHOTON` is not combined with a legacy `-photon-` `spark_version`, and needs Databricks Runtime 9.1 or later.',
  source: `${clusterSpec}.runtime_engine: "This field is not compatible with legacy spark_version values that contain -photon-"; Photon runtimes start at 9.1 LTS (Databricks release notes)`,
  refusedAt: 'request',
  check(cluster) {
    if (cluster.runtime_engine !== 'PHOTON' || typeof cluster.spark_version !== 'string') return [];
    const version = cluster.spark_version;
    if (version.includes('-photon-'))
      return [
        finding(
          'runtime_engine',
          `runtime_engine PHOTON is not compatible with the legacy spark_version "${version}": remove -photon- from it.`,
        ),
      ];
    const match = /^(\d+)\.(\d+)\./.exec(version);
    if (!match) return [];
    const major = Number(match[1]);
    const minor = Number(match[2]);
    const { major: minMajor, minor: minMinor } = photonMinimumRuntime;
    return major > minMajor || (major === minMajor && minor >= minMinor)
      ? []
      : [
          finding(
            'runtime_engine',
            `Photon is not supported on Databricks Runtime ${major}.${minor}: it needs ${minMajor}.${minMinor} or later.`,
          ),
        ];
  },
};

const photonNodeTypes: ClusterRule = {
  name: 'photon-node-types',
  requirement:
    'A Photon cluster runs on node types the workspace lists as Photon-capable, for the workers and the driver.',
  source:
    'Databricks Clusters API, NodeType.photon_worker_capable and photon_driver_capable (clusters/list-node-types)',
  refusedAt: 'request',
  check(cluster, facts) {
    if (!runsPhoton(cluster)) return [];
    const { worker, driver } = namedNodeTypes(cluster);
    const findings: Finding[] = [];
    const workerType = nodeTypeOf(facts, worker);
    if (workerType && !workerType.photonWorkerCapable)
      findings.push(finding('node_type_id', `Node type ${shown(worker)} does not support Photon workers.`));
    const driverType = nodeTypeOf(facts, driver);
    if (driverType && !driverType.photonDriverCapable)
      findings.push(
        finding(
          cluster.driver_node_type_id === undefined ? 'node_type_id' : 'driver_node_type_id',
          `Node type ${shown(driver)} does not support a Photon driver.`,
        ),
      );
    return findings;
  },
};

const availability: ClusterRule = {
  name: 'availability',
  requirement:
    '`aws_attributes.availability` is SPOT, ON_DEMAND or SPOT_WITH_FALLBACK; `azure_attributes.availability` is SPOT_AZURE, ON_DEMAND_AZURE or SPOT_WITH_FALLBACK_AZURE.',
  source: `${awsAttributes}.availability (enum AwsAvailability); ${azureAttributes}.availability (enum AzureAvailability)`,
  refusedAt: 'request',
  check: (cluster) => [
    ...enumFinding(
      'aws_attributes.availability',
      objectAt(cluster, 'aws_attributes').availability,
      awsAvailabilities,
    ),
    ...enumFinding(
      'azure_attributes.availability',
      objectAt(cluster, 'azure_attributes').availability,
      azureAvailabilities,
    ),
  ],
};

const firstOnDemand: ClusterRule = {
  name: 'first-on-demand',
  requirement: '`first_on_demand` is a whole number, 0 or more (the driver is the first node).',
  source: `${awsAttributes}.first_on_demand and ${azureAttributes}.first_on_demand`,
  refusedAt: 'request',
  check(cluster) {
    return (['aws_attributes', 'azure_attributes'] as const).flatMap((key) => {
      const value = objectAt(cluster, key).first_on_demand;
      if (value === undefined || value === null || isIntegerIn(value, 0)) return [];
      return [
        finding(
          `${key}.first_on_demand`,
          `Invalid ${key}.first_on_demand ${shown(value)}: must be an integer of at least 0.`,
        ),
      ];
    });
  },
};

const spotBid: ClusterRule = {
  name: 'spot-bid',
  requirement:
    '`aws_attributes.spot_bid_price_percent` is a whole number from 0 to 10000; `azure_attributes.spot_bid_max_price` is -1 or above 0.',
  source: `${awsAttributes}.spot_bid_price_percent: "we enforce this field to be no more than 10000"; ${azureAttributes}.spot_bid_max_price: "the value should > 0 or -1"`,
  refusedAt: 'request',
  check(cluster) {
    const findings: Finding[] = [];
    const percent = objectAt(cluster, 'aws_attributes').spot_bid_price_percent;
    if (percent !== undefined && percent !== null && !isIntegerIn(percent, 0, 10_000))
      findings.push(
        finding(
          'aws_attributes.spot_bid_price_percent',
          `Invalid spot_bid_price_percent ${shown(percent)}: must be an integer from 0 to 10000.`,
        ),
      );
    const price = objectAt(cluster, 'azure_attributes').spot_bid_max_price;
    if (price !== undefined && price !== null) {
      const number = numberOf(price);
      if (!(number === -1 || number > 0))
        findings.push(
          finding(
            'azure_attributes.spot_bid_max_price',
            `Invalid spot_bid_max_price ${shown(price)}: must be -1 or greater than 0.`,
          ),
        );
    }
    return findings;
  },
};

const ebsVolumes: ClusterRule = {
  name: 'ebs-volumes',
  requirement:
    'EBS volumes: `ebs_volume_type` is GENERAL_PURPOSE_SSD or THROUGHPUT_OPTIMIZED_HDD; `ebs_volume_count` is 0 to 10; each volume is 100–4096 GiB (SSD) or 500–4096 GiB (HDD).',
  source: `${awsAttributes}.ebs_volume_type (enum EbsVolumeType), ebs_volume_count ("Users can choose up to 10 volumes"), ebs_volume_size ("For general purpose SSD, this value must be within the range 100 - 4096. For throughput optimized HDD, this value must be within the range 500 - 4096")`,
  refusedAt: 'request',
  check(cluster) {
    const aws = objectAt(cluster, 'aws_attributes');
    const findings = enumFinding('aws_attributes.ebs_volume_type', aws.ebs_volume_type, ebsVolumeTypes);
    const count = aws.ebs_volume_count;
    if (count !== undefined && count !== null && !isIntegerIn(count, 0, 10)) {
      findings.push(
        finding(
          'aws_attributes.ebs_volume_count',
          `Invalid ebs_volume_count ${shown(count)}: must be an integer from 0 to 10.`,
        ),
      );
      return findings;
    }
    if (!(numberOf(count) > 0)) return findings;
    const type = aws.ebs_volume_type;
    const range = typeof type === 'string' ? ebsSizeRanges[type] : undefined;
    const size = aws.ebs_volume_size;
    if (range && size !== undefined && size !== null && !isIntegerIn(size, range.min, range.max))
      findings.push(
        finding(
          'aws_attributes.ebs_volume_size',
          `Invalid ebs_volume_size ${shown(size)} for ${type}: must be within ${range.min} - ${range.max} GiB.`,
        ),
      );
    return findings;
  },
};

const ebsPerformance: ClusterRule = {
  name: 'ebs-gp3-performance',
  requirement:
    "`ebs_volume_iops` and `ebs_volume_throughput` are set only on GENERAL_PURPOSE_SSD (gp3) volumes, within gp3's limits: 3000–16000 IOPS, 125–1000 MiB/s, at most 0.25 MiB/s per IOPS.",
  source: `${awsAttributes}.ebs_volume_iops and ebs_volume_throughput ("If using gp3 volumes…"); the gp3 limits of AWS EC2 EbsBlockDevice (Iops "gp3: 3,000 - 16,000 IOPS", Throughput "125 - 1000")`,
  refusedAt: 'request',
  check(cluster) {
    const aws = objectAt(cluster, 'aws_attributes');
    const iops = aws.ebs_volume_iops;
    const throughput = aws.ebs_volume_throughput;
    const hasIops = iops !== undefined && iops !== null;
    const hasThroughput = throughput !== undefined && throughput !== null;
    if (!hasIops && !hasThroughput) return [];
    if (aws.ebs_volume_type !== 'GENERAL_PURPOSE_SSD')
      return [
        finding(
          hasIops ? 'aws_attributes.ebs_volume_iops' : 'aws_attributes.ebs_volume_throughput',
          'ebs_volume_iops and ebs_volume_throughput apply to GENERAL_PURPOSE_SSD (gp3) volumes only.',
        ),
      ];
    const findings: Finding[] = [];
    if (hasIops && !isIntegerIn(iops, gp3Limits.minIops, gp3Limits.maxIops))
      findings.push(
        finding(
          'aws_attributes.ebs_volume_iops',
          `Invalid ebs_volume_iops ${shown(iops)}: gp3 volumes take ${gp3Limits.minIops} - ${gp3Limits.maxIops} IOPS.`,
        ),
      );
    if (hasThroughput && !isIntegerIn(throughput, gp3Limits.minThroughput, gp3Limits.maxThroughput))
      findings.push(
        finding(
          'aws_attributes.ebs_volume_throughput',
          `Invalid ebs_volume_throughput ${shown(throughput)}: gp3 volumes take ${gp3Limits.minThroughput} - ${gp3Limits.maxThroughput} MiB/s.`,
        ),
      );
    if (findings.length === 0 && hasThroughput) {
      const provisioned = hasIops ? numberOf(iops) : gp3Limits.minIops;
      if (numberOf(throughput) > provisioned * gp3Limits.throughputPerIops)
        findings.push(
          finding(
            'aws_attributes.ebs_volume_throughput',
            `Invalid ebs_volume_throughput ${shown(throughput)}: gp3 allows at most ${gp3Limits.throughputPerIops} MiB/s per IOPS (${provisioned} IOPS).`,
          ),
        );
    }
    return findings;
  },
};

const storageForEbsOnlyNodes: ClusterRule = {
  name: 'ebs-only-node-storage',
  requirement:
    'On AWS, a node type with no instance store needs at least one EBS volume (or autoscaling local storage, `enable_elastic_disk`).',
  source: `${awsAttributes}.ebs_volume_count: "For node types with no instance store, at least one EBS volume needs to be specified; otherwise, cluster creation will fail"`,
  refusedAt: 'launch',
  check(cluster, facts) {
    if (facts.cloud !== 'aws' || present(cluster, 'instance_pool_id') || cluster.enable_elastic_disk === true)
      return [];
    if (numberOf(objectAt(cluster, 'aws_attributes').ebs_volume_count) > 0) return [];
    const { worker, driver } = namedNodeTypes(cluster);
    const findings: Finding[] = [];
    for (const [field, id] of [
      ['node_type_id', worker],
      ['driver_node_type_id', driver],
    ] as const) {
      const type = nodeTypeOf(facts, id);
      if (
        type &&
        type.localDisks === 0 &&
        type.supportsEbsVolumes &&
        !findings.some((f) => f.message.includes(String(id)))
      )
        findings.push(
          finding(
            field,
            `Node type ${shown(id)} has no instance store: attach at least one EBS volume (aws_attributes.ebs_volume_count) or enable autoscaling local storage.`,
          ),
        );
    }
    return findings;
  },
};

/** Databricks' flexible node types: fallbacks share vCPUs, 100–110 % of the memory, local disks and architecture. */
const flexibleNodeTypes: ClusterRule = {
  name: 'flexible-node-types',
  requirement:
    "Each of `worker_node_type_flexibility.alternate_node_type_ids` (and the driver's) is a node type the workspace offers with the primary's vCPU count, 100–110 % of its memory, its local-disk configuration and its CPU architecture.",
  source:
    'Databricks Clusters API, NodeTypeFlexibility.alternate_node_type_ids; "Flexible node type compatibility reference": "Compatible instance types within a group share the same vCPU count, memory (within 100-110%), local disk configuration, CPU architecture"',
  refusedAt: 'request',
  check(cluster, facts) {
    if (!facts.nodeTypes) return [];
    const { worker, driver } = namedNodeTypes(cluster);
    const findings: Finding[] = [];
    for (const [key, primaryId] of [
      ['worker_node_type_flexibility', worker],
      ['driver_node_type_flexibility', driver],
    ] as const) {
      const alternates = objectAt(cluster, key).alternate_node_type_ids;
      if (!Array.isArray(alternates)) continue;
      const primary = nodeTypeOf(facts, primaryId);
      alternates.forEach((id: unknown, index) => {
        const field = `${key}.alternate_node_type_ids[${index}]`;
        const alternate = nodeTypeOf(facts, id);
        if (!alternate) {
          findings.push(finding(field, `Node type ${shown(id)} is not supported in this workspace.`));
          return;
        }
        if (!primary) return;
        const memoryRatio = alternate.memoryMb / primary.memoryMb;
        const compatible =
          alternate.cores === primary.cores &&
          memoryRatio >= 1 &&
          memoryRatio <= 1.1 &&
          alternate.localDisks > 0 === primary.localDisks > 0 &&
          alternate.graviton === primary.graviton;
        if (!compatible)
          findings.push(
            finding(
              field,
              `Node type ${shown(id)} is not a compatible alternate of ${shown(primaryId)}: it must have the same vCPUs, 100-110% of the memory, the same local disks and architecture.`,
            ),
          );
      });
    }
    return findings;
  },
};

const customTags: ClusterRule = {
  name: 'custom-tags',
  requirement: 'At most 45 `custom_tags`.',
  source: `${clusterSpec}.custom_tags: "Currently, Databricks allows at most 45 custom tags"`,
  refusedAt: 'request',
  check(cluster) {
    const tags = cluster.custom_tags;
    return isObject(tags) && Object.keys(tags).length > 45
      ? [
          finding(
            'custom_tags',
            `A cluster can have at most 45 custom tags, not ${Object.keys(tags).length}.`,
          ),
        ]
      : [];
  },
};

const sparkVersionOffered: ClusterRule = {
  name: 'spark-version-offered',
  requirement: '`spark_version` is a runtime the workspace offers (`clusters/spark-versions`).',
  source: `${clusterSpec}.spark_version: "A list of available Spark versions can be retrieved by using the clusters/sparkVersions API call"`,
  refusedAt: 'request',
  check(cluster, facts) {
    const version = cluster.spark_version;
    if (!facts.sparkVersions || typeof version !== 'string' || facts.sparkVersions.includes(version))
      return [];
    return [finding('spark_version', `Invalid spark version ${version}.`)];
  },
};

const policy: ClusterRule = {
  name: 'policy',
  requirement:
    'A cluster that names a compute policy meets each of its rules (fixed, forbidden, allowlist, blocklist, regex, range, `dbus_per_hour`).',
  source: 'Databricks "Compute policy reference" (policy definition rules by attribute path)',
  refusedAt: 'request',
  check: policyFindings,
};

/** Every rule of a `new_cluster`, in the order their violations are reported. */
export const databricksClusterRules: readonly ClusterRule[] = [
  workersOrAutoscale,
  workerCount,
  autoscaleBounds,
  nodeTypeOffered,
  poolNodeType,
  runtimeEngine,
  photonRuntime,
  photonNodeTypes,
  availability,
  firstOnDemand,
  spotBid,
  ebsVolumes,
  ebsPerformance,
  storageForEbsOnlyNodes,
  flexibleNodeTypes,
  customTags,
  sparkVersionOffered,
  policy,
];
