import type { JobSettings, NewClusterSettings } from './schema.js';

const runtime = '15.4.x-scala2.12';

/** The cloud an emulated workspace runs on: its jobs use only that cloud's instance types. */
export type WorkspaceCloud = 'aws' | 'azure';

/**
 * The Azure twin of each AWS type the shipped jobs use: same cores, the nearest memory per core, and
 * local SSD where the AWS type has local NVMe.
 */
const azureTwinOf: Readonly<Record<string, string>> = {
  'i3.xlarge': 'Standard_E4ds_v5',
  'm5.xlarge': 'Standard_DS3_v2',
  'm5.2xlarge': 'Standard_D8ds_v5',
  'm5d.xlarge': 'Standard_D4ds_v5',
  'm6gd.xlarge': 'Standard_D4ds_v5',
  'r5d.xlarge': 'Standard_E4ds_v5',
  'r5d.2xlarge': 'Standard_E8ds_v5',
};

const azureAvailability: Readonly<Record<string, string>> = {
  ON_DEMAND: 'ON_DEMAND_AZURE',
  SPOT: 'SPOT_AZURE',
  SPOT_WITH_FALLBACK: 'SPOT_WITH_FALLBACK_AZURE',
};

interface ClusterOptions {
  /** AWS availability of the cluster's nodes (ON_DEMAND unless given). */
  availability?: 'ON_DEMAND' | 'SPOT_WITH_FALLBACK';
  /** EBS volumes per AWS node (Azure nodes keep their managed disk). */
  ebsGb?: number;
}

function clusterFor(cloud: WorkspaceCloud) {
  return (
    awsNodeTypeId: string,
    workers: number | { min: number; max: number },
    logTo: 'dbfs' | 'volumes',
    options: ClusterOptions = {},
  ): NewClusterSettings => {
    const logConf =
      logTo === 'dbfs'
        ? { dbfs: { destination: 'dbfs:/cluster-logs' } }
        : { volumes: { destination: '/Volumes/main/ops/cluster_logs' } };
    const availability = options.availability ?? 'ON_DEMAND';
    const nodeTypeId = cloud === 'aws' ? awsNodeTypeId : azureTwinOf[awsNodeTypeId];
    if (!nodeTypeId) throw new Error(`no Azure twin for ${awsNodeTypeId}`);
    return {
      spark_version: runtime,
      node_type_id: nodeTypeId,
      ...(typeof workers === 'number'
        ? { num_workers: workers }
        : { autoscale: { min_workers: workers.min, max_workers: workers.max } }),
      ...(cloud === 'azure'
        ? { azure_attributes: { availability: azureAvailability[availability], first_on_demand: 1 } }
        : {
            aws_attributes: {
              availability,
              first_on_demand: 1,
              ...(options.ebsGb === undefined
                ? { zone_id: 'us-west-2a' }
                : {
                    ebs_volume_type: 'GENERAL_PURPOSE_SSD',
                    ebs_volume_count: 1,
                    ebs_volume_size: options.ebsGb,
                  }),
            },
          }),
      cluster_log_conf: logConf,
    };
  };
}

function singleTask(name: string, workload: string, newCluster: NewClusterSettings): JobSettings {
  return {
    name,
    tasks: [
      {
        task_key: 'main',
        spark_python_task: { python_file: `dbfs:/jobbank/${workload}.py` },
        new_cluster: newCluster,
      },
    ],
    max_concurrent_runs: 1,
    tags: { 'job-bank': workload },
  };
}

/**
 * The jobs a fresh emulator holds: the Job Bank, onboarded with cluster log delivery as users would,
 * on the instance types of the workspace's cloud.
 */
export function shippedJobSettings(cloud: WorkspaceCloud = 'aws'): JobSettings[] {
  const cluster = clusterFor(cloud);
  return [
    singleTask('Join-heavy ETL', 'join-heavy-etl', cluster('i3.xlarge', 8, 'dbfs')),
    singleTask('Daily aggregation', 'daily-aggregation', cluster('m5d.xlarge', 6, 'dbfs')),
    singleTask('Skewed join', 'skewed-join', cluster('r5d.xlarge', 8, 'dbfs')),
    singleTask('Spill-heavy sort', 'spill-heavy-sort', cluster('m5.xlarge', 8, 'dbfs', { ebsGb: 100 })),
    singleTask('CPU-bound ML scoring', 'cpu-bound-ml', cluster('m5.2xlarge', 4, 'dbfs')),
    singleTask('Many small jobs', 'many-small-jobs', cluster('m5d.xlarge', { min: 2, max: 8 }, 'dbfs')),
    singleTask('IO-bound scan', 'io-bound-scan', cluster('m5d.xlarge', { min: 2, max: 12 }, 'volumes')),
    singleTask('Photon-friendly SQL', 'photon-friendly-sql', cluster('m6gd.xlarge', 8, 'volumes')),
    singleTask(
      'Growing events',
      'growing-events',
      cluster('r5d.xlarge', 6, 'dbfs', { availability: 'SPOT_WITH_FALLBACK' }),
    ),
    {
      name: 'Two-cluster pipeline',
      job_clusters: [
        { job_cluster_key: 'ingest_cluster', new_cluster: cluster('m5d.xlarge', 4, 'dbfs') },
        { job_cluster_key: 'transform_cluster', new_cluster: cluster('r5d.2xlarge', 6, 'volumes') },
      ],
      tasks: [
        {
          task_key: 'ingest',
          job_cluster_key: 'ingest_cluster',
          spark_python_task: { python_file: 'dbfs:/jobbank/pipeline-ingest.py' },
        },
        {
          task_key: 'transform',
          depends_on: [{ task_key: 'ingest' }],
          job_cluster_key: 'transform_cluster',
          spark_python_task: { python_file: 'dbfs:/jobbank/pipeline-transform.py' },
        },
      ],
      max_concurrent_runs: 1,
      tags: { 'job-bank': 'pipeline' },
    },
  ];
}

/** A job whose one task runs on serverless compute (an environment, no cluster), in performance-optimized mode. */
function serverlessTask(name: string, workload: string): JobSettings {
  return {
    name,
    environments: [{ environment_key: 'default', spec: { client: '2' } }],
    tasks: [
      {
        task_key: 'main',
        environment_key: 'default',
        spark_python_task: { python_file: `dbfs:/jobbank/${workload}.py` },
      },
    ],
    max_concurrent_runs: 1,
    tags: { 'job-bank': workload },
  };
}

/**
 * The Job Bank's serverless jobs (added with the emulator's `serverlessJobs` option): the same 4–6 minutes of
 * standard-mode start-up weigh differently on each. On the emulator's autoscaling serverless compute a
 * performance-optimized run of the nightly roll-up takes about 150 minutes, the feature backfill about 20, the
 * ML scoring about 4: with an SLA of 1.25× the first run, standard mode's start-up fits the first's SLA, fits
 * the second's only at the quick end, and never fits the third's. Standard mode also adds workers more slowly
 * (about 10 more minutes on the roll-up, 10 on the backfill), which the first's SLA still takes.
 */
export function shippedServerlessJobSettings(): JobSettings[] {
  return [
    serverlessTask('Nightly roll-up (serverless)', 'nightly-rollup'),
    serverlessTask('Feature backfill (serverless)', 'feature-backfill'),
    serverlessTask('ML scoring (serverless)', 'cpu-bound-ml'),
  ];
}
