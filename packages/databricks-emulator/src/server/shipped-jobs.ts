import type { JobSettings, NewClusterSettings } from './schema.js';

const runtime = '15.4.x-scala2.12';

function cluster(
  nodeTypeId: string,
  workers: number | { min: number; max: number },
  logTo: 'dbfs' | 'volumes',
  extra: Partial<NewClusterSettings> = {},
): NewClusterSettings {
  const logConf =
    logTo === 'dbfs'
      ? { dbfs: { destination: 'dbfs:/cluster-logs' } }
      : { volumes: { destination: '/Volumes/main/ops/cluster_logs' } };
  const azure = nodeTypeId.startsWith('Standard_');
  return {
    spark_version: runtime,
    node_type_id: nodeTypeId,
    ...(typeof workers === 'number'
      ? { num_workers: workers }
      : { autoscale: { min_workers: workers.min, max_workers: workers.max } }),
    ...(azure
      ? { azure_attributes: { availability: 'ON_DEMAND_AZURE', first_on_demand: 1 } }
      : { aws_attributes: { availability: 'ON_DEMAND', first_on_demand: 1, zone_id: 'us-west-2a' } }),
    cluster_log_conf: logConf,
    ...extra,
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

/** The jobs a fresh emulator holds: the Job Bank, onboarded with cluster log delivery as users would. */
export function shippedJobSettings(): JobSettings[] {
  return [
    singleTask('Join-heavy ETL', 'join-heavy-etl', cluster('i3.xlarge', 8, 'dbfs')),
    singleTask('Daily aggregation', 'daily-aggregation', cluster('m5d.xlarge', 6, 'dbfs')),
    singleTask('Skewed join', 'skewed-join', cluster('r5d.xlarge', 8, 'dbfs')),
    singleTask(
      'Spill-heavy sort',
      'spill-heavy-sort',
      cluster('m5.xlarge', 8, 'dbfs', {
        aws_attributes: {
          availability: 'ON_DEMAND',
          first_on_demand: 1,
          ebs_volume_type: 'GENERAL_PURPOSE_SSD',
          ebs_volume_count: 1,
          ebs_volume_size: 100,
        },
      }),
    ),
    singleTask('CPU-bound ML scoring', 'cpu-bound-ml', cluster('m5.2xlarge', 4, 'dbfs')),
    singleTask('Many small jobs', 'many-small-jobs', cluster('m5d.xlarge', { min: 2, max: 8 }, 'dbfs')),
    singleTask('IO-bound scan', 'io-bound-scan', cluster('Standard_D4ds_v5', { min: 2, max: 12 }, 'volumes')),
    singleTask('Photon-friendly SQL', 'photon-friendly-sql', cluster('m6gd.xlarge', 8, 'volumes')),
    singleTask(
      'Growing events',
      'growing-events',
      cluster('r5d.xlarge', 6, 'dbfs', {
        aws_attributes: { availability: 'SPOT_WITH_FALLBACK', first_on_demand: 1, zone_id: 'us-west-2a' },
      }),
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
