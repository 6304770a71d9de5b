/**
 * The driver and the EBS volumes each Databricks project's runs ran on, in run order, so a reader of the
 * Job Bank's JSON can count whose driver or disks Setpoint changed (issue: no other job's may change).
 */
export interface ClusterDimensions {
  job: string;
  seed: number;
  /** Each run's driver node type (`driver_node_type_id`, else the worker type, as Databricks does), oldest first. */
  drivers: string[];
  /** Each run's EBS volumes per node as "count × size GiB type[ iops/throughput]", or "none", oldest first. */
  volumes: string[];
  /** Whether any run's driver differs from the first run's. */
  driverChanged: boolean;
  /** Whether any run's volumes differ from the first run's. */
  volumesChanged: boolean;
}

/** The dimensions of one project from its runs' reported clusters (`clusterConfig`, a `new_cluster`). */
export function clusterDimensionsOf(
  job: string,
  seed: number,
  runs: ReadonlyArray<{ clusterConfig: Record<string, unknown> | null }>,
): ClusterDimensions {
  const clusters = runs.map((run) => run.clusterConfig).filter((config) => config !== null);
  const drivers = clusters.map(
    (config) => text(config.driver_node_type_id) ?? text(config.node_type_id) ?? '?',
  );
  const volumes = clusters.map(volumesOf);
  return {
    job,
    seed,
    drivers,
    volumes,
    driverChanged: drivers.some((driver) => driver !== drivers[0]),
    volumesChanged: volumes.some((volume) => volume !== volumes[0]),
  };
}

/** How many projects' drivers and volumes changed, by job. */
export function changedDimensions(records: readonly ClusterDimensions[]): {
  driverChangedJobs: string[];
  volumesChangedJobs: string[];
} {
  const jobsWhere = (changed: (record: ClusterDimensions) => boolean) =>
    [...new Set(records.filter(changed).map((record) => record.job))].sort();
  return {
    driverChangedJobs: jobsWhere((record) => record.driverChanged),
    volumesChangedJobs: jobsWhere((record) => record.volumesChanged),
  };
}

function volumesOf(config: Record<string, unknown>): string {
  const aws = (config.aws_attributes ?? {}) as Record<string, unknown>;
  const count = Number(aws.ebs_volume_count ?? 0);
  if (!(count > 0)) return 'none';
  const performance = [
    aws.ebs_volume_iops ? `${String(aws.ebs_volume_iops)} IOPS` : '',
    aws.ebs_volume_throughput ? `${String(aws.ebs_volume_throughput)} MiB/s` : '',
  ].filter(Boolean);
  return `${count} × ${String(aws.ebs_volume_size ?? '?')} GiB ${String(aws.ebs_volume_type ?? '?')}${performance.length > 0 ? ` ${performance.join(' ')}` : ''}`;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
