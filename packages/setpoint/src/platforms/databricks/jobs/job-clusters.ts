import type { Job, JobSettings, NewClusterSpec } from '../api/schema.js';
import { isServerlessTask } from '../serverless/serverless-tasks.js';

/**
 * Where a job's compute is declared. Setpoint optimizes one job cluster per project: a shared
 * `job_clusters[]` entry or a task's own `new_cluster`.
 */
export type JobClusterRef =
  | { kind: 'job_cluster'; jobClusterKey: string }
  | { kind: 'task_cluster'; taskKey: string };

export type ComputeClassification =
  | { kind: 'manageable'; ref: JobClusterRef; spec: NewClusterSpec; taskKeys: string[] }
  | { kind: 'all_purpose'; taskKey: string; existingClusterId: string; reason: string }
  | { kind: 'serverless'; taskKey: string }
  | { kind: 'no_compute'; taskKey: string; reason: string };

export function clusterRefKey(ref: JobClusterRef): string {
  return ref.kind === 'job_cluster' ? `job_cluster:${ref.jobClusterKey}` : `task:${ref.taskKey}`;
}

export function describeClusterRef(ref: JobClusterRef): string {
  return ref.kind === 'job_cluster' ? `job cluster "${ref.jobClusterKey}"` : `task "${ref.taskKey}" cluster`;
}

export function parseClusterRefKey(key: string): JobClusterRef | undefined {
  const [kind, name] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
  if (!name) return undefined;
  if (kind === 'job_cluster') return { kind: 'job_cluster', jobClusterKey: name };
  if (kind === 'task') return { kind: 'task_cluster', taskKey: name };
  return undefined;
}

/** Every compute a job uses, each either manageable by Setpoint or reported with the reason it is not. */
export function classifyJobCompute(settings: JobSettings): ComputeClassification[] {
  const result: ComputeClassification[] = [];
  const tasks = settings.tasks ?? [];
  for (const jobCluster of settings.job_clusters ?? []) {
    const taskKeys = tasks
      .filter((task) => task.job_cluster_key === jobCluster.job_cluster_key)
      .map((task) => task.task_key);
    if (jobCluster.new_cluster) {
      result.push({
        kind: 'manageable',
        ref: { kind: 'job_cluster', jobClusterKey: jobCluster.job_cluster_key },
        spec: jobCluster.new_cluster,
        taskKeys,
      });
    }
  }
  for (const task of tasks) {
    if (task.new_cluster) {
      result.push({
        kind: 'manageable',
        ref: { kind: 'task_cluster', taskKey: task.task_key },
        spec: task.new_cluster,
        taskKeys: [task.task_key],
      });
    } else if (task.existing_cluster_id) {
      result.push({
        kind: 'all_purpose',
        taskKey: task.task_key,
        existingClusterId: task.existing_cluster_id,
        reason:
          'runs on an existing all-purpose cluster shared with other work; Setpoint changes only job clusters',
      });
    } else if (isServerlessTask(task)) {
      result.push({ kind: 'serverless', taskKey: task.task_key });
    } else if (!task.job_cluster_key) {
      result.push({
        kind: 'no_compute',
        taskKey: task.task_key,
        reason: 'runs no code on job compute (a condition, another job, SQL on a warehouse or a pipeline)',
      });
    }
  }
  return result;
}

export function findClusterSpec(settings: JobSettings, ref: JobClusterRef): NewClusterSpec | undefined {
  if (ref.kind === 'job_cluster') {
    return settings.job_clusters?.find((cluster) => cluster.job_cluster_key === ref.jobClusterKey)
      ?.new_cluster;
  }
  return settings.tasks?.find((task) => task.task_key === ref.taskKey)?.new_cluster;
}

export function jobName(job: Job): string {
  return job.settings.name ?? `job ${job.job_id}`;
}
