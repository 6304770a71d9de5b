import { findNodeType } from '../physics/node-types.js';
import { invalidParameter } from './api-errors.js';
import type { JobSettings, NewClusterSettings, TaskSettings } from './schema.js';

type Keyed = Record<string, unknown>;

const keyedArrays: Record<string, string> = {
  tasks: 'task_key',
  job_clusters: 'job_cluster_key',
  environments: 'environment_key',
};

function mergeByKey(current: Keyed[], incoming: Keyed[], key: string): Keyed[] {
  const merged = [...current];
  for (const entry of incoming) {
    const index = merged.findIndex((existing) => existing[key] === entry[key]);
    if (index >= 0) merged[index] = entry;
    else merged.push(entry);
  }
  return merged;
}

/**
 * jobs/update (API 2.2): top-level fields in `new_settings` replace the old ones, except the keyed arrays
 * (`tasks` by task_key, `job_clusters` by job_cluster_key), whose entries are replaced whole by key while
 * the other entries stay. `fields_to_remove` takes top-level names and `tasks/<key>`, `job_clusters/<key>`.
 */
export function mergeJobSettings(
  current: JobSettings,
  newSettings: JobSettings | undefined,
  fieldsToRemove: readonly string[] = [],
): JobSettings {
  const merged: Keyed = { ...current };
  for (const [field, value] of Object.entries(newSettings ?? {})) {
    const key = keyedArrays[field];
    if (key && Array.isArray(value)) {
      const existing = Array.isArray(merged[field]) ? (merged[field] as Keyed[]) : [];
      merged[field] = mergeByKey(existing, value as Keyed[], key);
    } else {
      merged[field] = value;
    }
  }
  for (const field of fieldsToRemove) {
    const slash = field.indexOf('/');
    if (slash < 0) {
      delete merged[field];
      continue;
    }
    const arrayField = field.slice(0, slash);
    const entryKey = field.slice(slash + 1);
    const key = keyedArrays[arrayField];
    const entries = merged[arrayField];
    if (!key || !Array.isArray(entries)) throw invalidParameter(`Invalid field to remove: ${field}`);
    const kept = (entries as Keyed[]).filter((entry) => entry[key] !== entryKey);
    if (kept.length === entries.length)
      throw invalidParameter(`Invalid field to remove: ${field} does not exist`);
    merged[arrayField] = kept;
  }
  return merged as JobSettings;
}

/** Checks what the real service rejects: duplicate keys, dangling references, ambiguous compute. */
export function validateJobSettings(settings: JobSettings): void {
  const tasks = settings.tasks ?? [];
  const clusterKeys = new Set((settings.job_clusters ?? []).map((cluster) => cluster.job_cluster_key));
  if (clusterKeys.size !== (settings.job_clusters ?? []).length) {
    throw invalidParameter('Job cluster keys must be unique.');
  }
  const taskKeys = new Set<string>();
  for (const task of tasks) {
    if (taskKeys.has(task.task_key)) throw invalidParameter(`Task key ${task.task_key} is not unique.`);
    taskKeys.add(task.task_key);
  }
  for (const task of tasks) {
    const compute = [
      'new_cluster',
      'job_cluster_key',
      'existing_cluster_id',
      'environment_key',
      'compute',
    ].filter((field) => (task as Keyed)[field] !== undefined);
    if (compute.length > 1) {
      throw invalidParameter(`Task ${task.task_key} can specify only one of ${compute.join(', ')}.`);
    }
    if (task.job_cluster_key !== undefined && !clusterKeys.has(task.job_cluster_key)) {
      throw invalidParameter(
        `The job cluster with key ${task.job_cluster_key} referenced by task ${task.task_key} does not exist.`,
      );
    }
    const environment = task.environment_key;
    if (environment !== undefined && !settings.environments?.some((e) => e.environment_key === environment)) {
      throw invalidParameter(
        `The environment with key ${environment} referenced by task ${task.task_key} does not exist.`,
      );
    }
    for (const dependency of task.depends_on ?? []) {
      if (!taskKeys.has(dependency.task_key)) {
        throw invalidParameter(
          `Task ${task.task_key} depends on ${dependency.task_key}, which does not exist.`,
        );
      }
    }
  }
}

function clusterWithDefaults(cluster: NewClusterSettings): NewClusterSettings {
  const { apply_policy_default_values: _ignored, ...rest } = cluster as Keyed;
  const withDefaults: Keyed = { enable_elastic_disk: false, data_security_mode: 'SINGLE_USER', ...rest };
  const nodeType = typeof cluster.node_type_id === 'string' ? findNodeType(cluster.node_type_id) : undefined;
  if (nodeType?.cloud !== 'Azure' && withDefaults.aws_attributes === undefined) {
    withDefaults.aws_attributes = { availability: 'SPOT_WITH_FALLBACK', zone_id: 'us-east-1c' };
  }
  return withDefaults as NewClusterSettings;
}

function taskWithDefaults(task: TaskSettings): TaskSettings {
  const withDefaults: Keyed = { run_if: 'ALL_SUCCESS', timeout_seconds: 0, email_notifications: {}, ...task };
  if (task.depends_on) {
    withDefaults.depends_on = [...task.depends_on].sort((a, b) =>
      a.task_key < b.task_key ? -1 : a.task_key > b.task_key ? 1 : 0,
    );
  }
  if (task.new_cluster) withDefaults.new_cluster = clusterWithDefaults(task.new_cluster);
  return withDefaults as TaskSettings;
}

/** The defaults the real service adds on read; clients comparing settings must ignore them. */
export function withReadDefaults(settings: JobSettings): JobSettings {
  const result: Keyed = {
    email_notifications: {},
    webhook_notifications: {},
    timeout_seconds: 0,
    max_concurrent_runs: 1,
    format: 'MULTI_TASK',
    ...settings,
  };
  if (settings.tasks) result.tasks = settings.tasks.map(taskWithDefaults);
  if (settings.job_clusters) {
    result.job_clusters = settings.job_clusters.map((cluster) => ({
      ...cluster,
      new_cluster: clusterWithDefaults(cluster.new_cluster),
    }));
  }
  return result as JobSettings;
}

export { clusterWithDefaults };
