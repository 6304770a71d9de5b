import { NotFoundError } from '@setpoint/foundation/errors';
import { DatabricksApiError } from '../api/api-error.js';
import { joinLogPath, type LogEntry, type LogStore } from './log-store.js';

/**
 * Finds `<dest>/<cluster_id>/eventlog/<cluster_id>_<driver-ip>/<spark_context_id>/`. The middle
 * folder's IP rendering is undocumented, so it is found by listing, never built.
 */
export async function locateEventLogDir(
  store: LogStore,
  destination: string,
  clusterId: string,
  sparkContextId: string | undefined,
): Promise<string> {
  const root = joinLogPath(destination, clusterId, 'eventlog');
  const driverDirs = (await listOrEmpty(store, root)).filter((entry) => entry.isDir);
  const contexts: LogEntry[] = [];
  for (const driverDir of driverDirs) {
    contexts.push(...(await listOrEmpty(store, driverDir.path)).filter((entry) => entry.isDir));
  }
  if (contexts.length === 0) {
    throw new NotFoundError('EVENT_LOG_NOT_DELIVERED', `no event log delivered yet under ${root}`);
  }
  if (sparkContextId) {
    const match = contexts.find((entry) => entry.name === sparkContextId);
    if (!match) {
      throw new NotFoundError(
        'EVENT_LOG_NOT_DELIVERED',
        `no event log for Spark context ${sparkContextId} under ${root} (found ${contexts.map((entry) => entry.name).join(', ')})`,
      );
    }
    return match.path;
  }
  const newest = contexts.reduce((best, entry) =>
    (entry.modifiedAt ?? 0) > (best.modifiedAt ?? 0) ? entry : best,
  );
  return newest.path;
}

async function listOrEmpty(store: LogStore, path: string): Promise<LogEntry[]> {
  try {
    return await store.list(path);
  } catch (error) {
    if (
      error instanceof DatabricksApiError &&
      (error.httpStatus === 404 || error.errorCode === 'RESOURCE_DOES_NOT_EXIST')
    )
      return [];
    throw error;
  }
}

export type Completeness =
  | { complete: true; totalBytes: number }
  | { complete: false; totalBytes: number; reason: string };

/**
 * Databricks delivers logs every five minutes and everything up to termination afterwards. A run's
 * log is complete when the live `eventlog` file was written at or after the run ended, no part is
 * empty, and the total size did not change since the previous look.
 *
 * `lastDeliveryAttempt` (the cluster's `cluster_log_status.last_attempted`) replaces the file's own
 * time when that comes from another clock than the run's: an S3 object's LastModified is stamped by
 * S3, and comparing it with a Databricks end time would trust two clocks to agree.
 */
export function checkEventLogCompleteness(
  files: LogEntry[],
  runEndTime: number,
  previousTotalBytes?: number,
  lastDeliveryAttempt?: number,
): Completeness {
  const parts = files.filter((file) => !file.isDir && file.name.startsWith('eventlog'));
  const totalBytes = parts.reduce((sum, file) => sum + file.size, 0);
  const live = parts.find((file) => file.name === 'eventlog');
  if (!live) return { complete: false, totalBytes, reason: 'the live eventlog file has not been delivered' };
  const writtenAt = lastDeliveryAttempt ?? live.modifiedAt ?? 0;
  if (writtenAt < runEndTime) {
    return {
      complete: false,
      totalBytes,
      reason:
        lastDeliveryAttempt === undefined
          ? 'the eventlog file was last written before the run ended'
          : 'the last log delivery was attempted before the run ended',
    };
  }
  const empty = parts.find((file) => file.size === 0);
  if (empty) return { complete: false, totalBytes, reason: `${empty.name} is still empty` };
  if (previousTotalBytes === undefined || previousTotalBytes !== totalBytes) {
    return { complete: false, totalBytes, reason: 'the log size is still changing' };
  }
  return { complete: true, totalBytes };
}
