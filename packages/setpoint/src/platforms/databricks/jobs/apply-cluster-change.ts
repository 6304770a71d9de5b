import { ConflictError, NotFoundError, ValidationError } from '@setpoint/foundation/errors';
import type { JobSettings, NewClusterSpec } from '../api/schema.js';
import { describeClusterRef, findClusterSpec, type JobClusterRef } from './job-clusters.js';
import {
  type ManagedClusterFields,
  managedAwsAttributes,
  managedAzureAttributes,
  managedTopLevelFields,
} from './managed-fields.js';

export interface ClusterUpdate {
  /** The `new_settings` body of jobs/update: the one whole entry that changes, nothing else. */
  newSettings: JobSettings;
  previous: NewClusterSpec;
  next: NewClusterSpec;
}

export interface ApplyOptions {
  /** Keep fixed-size clusters fixed and autoscaling ones autoscaling. */
  maintainScalingType: boolean;
  /**
   * The caller only reads the result (the managed values a merge ends up with): the fields Setpoint does not
   * manage are shared with `previous` instead of copied, which is most of a merge's cost on a large cluster.
   */
  readOnly?: boolean;
}

/**
 * jobs/update replaces `job_clusters`/`tasks` entries whole (key-merge), so the change is sent as the
 * complete entry with only the managed fields replaced; every unmanaged field goes back untouched.
 * `null` in a managed attribute removes it (e.g. dropping EBS volumes).
 */
export function buildClusterUpdate(
  settings: JobSettings,
  ref: JobClusterRef,
  managed: ManagedClusterFields,
  options: ApplyOptions,
): ClusterUpdate {
  const previous = findClusterSpec(settings, ref);
  if (!previous)
    throw new NotFoundError('JOB_CLUSTER_NOT_FOUND', `the job has no ${describeClusterRef(ref)} any more`);
  const next = withManagedFields(previous, managed, options);
  return { previous, next, newSettings: settingsWithCluster(settings, ref, next) };
}

/** The `new_settings` of jobs/update that gives the job's cluster entry `next`, its other fields as they are. */
export function settingsWithCluster(
  settings: JobSettings,
  ref: JobClusterRef,
  next: NewClusterSpec,
): JobSettings {
  if (ref.kind === 'job_cluster') {
    const entry = settings.job_clusters?.find((cluster) => cluster.job_cluster_key === ref.jobClusterKey);
    return { job_clusters: [{ ...entry, job_cluster_key: ref.jobClusterKey, new_cluster: next }] };
  }
  const task = settings.tasks?.find((candidate) => candidate.task_key === ref.taskKey);
  return { tasks: [{ ...task, task_key: ref.taskKey, new_cluster: next }] };
}

export function withManagedFields(
  previous: NewClusterSpec,
  managed: ManagedClusterFields,
  options: ApplyOptions,
): NewClusterSpec {
  const wasAutoscaling = previous.autoscale !== undefined;
  const willAutoscale =
    managed.autoscale !== undefined ? true : managed.num_workers !== undefined ? false : wasAutoscaling;
  if (options.maintainScalingType && wasAutoscaling !== willAutoscale) {
    throw new ConflictError(
      'SCALING_TYPE_CHANGE',
      `the recommendation makes a ${wasAutoscaling ? 'autoscaling' : 'fixed-size'} cluster ${willAutoscale ? 'autoscaling' : 'fixed-size'}, but the project keeps its scaling type`,
    );
  }
  // every change below replaces a top-level field (attributes are merged into new objects), so a read-only
  // result may share the rest
  const next: NewClusterSpec = options.readOnly ? { ...previous } : structuredClone(previous);
  for (const field of managedTopLevelFields) {
    const value = managed[field];
    if (value !== undefined) (next as Record<string, unknown>)[field] = value;
  }
  if (managed.autoscale) delete next.num_workers;
  else if (managed.num_workers !== undefined) delete next.autoscale;
  if (managed.runtime_engine === 'PHOTON' || managed.runtime_engine === 'STANDARD') {
    // a legacy "-photon-" runtime string contradicts runtime_engine; the engine field wins
    if (next.spark_version?.includes('-photon-'))
      next.spark_version = next.spark_version.replace('-photon-', '-');
  }
  next.aws_attributes = mergeAttributes(
    previous.aws_attributes,
    managed.aws_attributes,
    managedAwsAttributes,
  );
  next.azure_attributes = mergeAttributes(
    previous.azure_attributes,
    managed.azure_attributes,
    managedAzureAttributes,
  );
  if (next.aws_attributes === undefined) delete next.aws_attributes;
  if (next.azure_attributes === undefined) delete next.azure_attributes;
  return next;
}

function mergeAttributes(
  current: Record<string, unknown> | undefined,
  changes: Partial<Record<string, string | number | null>> | undefined,
  allowed: readonly string[],
): Record<string, unknown> | undefined {
  if (!changes) return current;
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (!allowed.includes(key))
      throw new ValidationError('UNMANAGED_FIELD', `Setpoint does not manage the cluster attribute ${key}`);
    if (value === null) delete merged[key];
    else if (value !== undefined) merged[key] = value;
  }
  return merged;
}
