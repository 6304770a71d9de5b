import { ValidationError } from '@setpoint/foundation/errors';
import type { Cluster, ConfigurationShape } from '../api/schema.js';

/** Spark's event-log directory on EMR when `spark-defaults` does not set one. */
export const emrDefaultEventLogDir = 'hdfs:///var/log/spark/apps';

function sparkDefaults(configurations: readonly ConfigurationShape[] | undefined): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const configuration of configurations ?? [])
    if (configuration.Classification === 'spark-defaults')
      Object.assign(merged, configuration.Properties ?? {});
  return merged;
}

/** Where Spark on this cluster writes its event logs (`spark.eventLog.dir`), `s3a://` read as `s3://`. */
export function eventLogDirOf(cluster: Pick<Cluster, 'Configurations'>): string {
  const dir = sparkDefaults(cluster.Configurations)['spark.eventLog.dir'] ?? emrDefaultEventLogDir;
  return dir.replace(/^s3[an]:\/\//, 's3://').replace(/\/+$/, '');
}

/** The fix for a cluster whose event logs stayed on HDFS, as one configuration users can paste. */
export const hdfsEventLogFix =
  'add to the cluster\'s Configurations: {"Classification": "spark-defaults", "Properties": {"spark.eventLog.dir": "s3://<bucket>/spark-events/", "spark.history.fs.logDirectory": "s3://<bucket>/spark-events/"}}';

/** Fails with the reason and the fix when the cluster's event logs cannot be read from S3. */
export function requireS3EventLogDir(cluster: Pick<Cluster, 'Id' | 'Configurations'>): string {
  const dir = eventLogDirOf(cluster);
  if (dir.startsWith('s3://')) return dir;
  throw new ValidationError(
    'EMR_EVENT_LOG_ON_HDFS',
    `cluster ${cluster.Id} writes Spark event logs to ${dir} (HDFS on the cluster), which is lost when the cluster terminates and which Setpoint cannot read; ${hdfsEventLogFix}`,
    { details: { clusterId: cluster.Id, eventLogDir: dir } },
  );
}

const submittedApplication = /(?:Submitted application|Submitting application) (application_\d+_\d+)/;

/** The YARN application a step's `spark-submit` started, from the step's stderr. */
export function applicationIdFromStepLog(stderr: string): string | undefined {
  return submittedApplication.exec(stderr)?.[1];
}

/** `<LogUri>/<cluster id>/steps/<step id>/stderr.gz`, where EMR uploads a step's stderr. */
export function stepStderrUrl(logUri: string, clusterId: string, stepId: string): string {
  return `${logUri.replace(/^s3[an]:\/\//, 's3://').replace(/\/+$/, '')}/${clusterId}/steps/${stepId}/stderr.gz`;
}
