import { ConflictError, ValidationError } from '@setpoint/foundation/errors';
import type { JobSettings } from '../api/schema.js';
import { clusterRefKey, findClusterSpec, type JobClusterRef } from './job-clusters.js';

/** Databricks accepts at most three destinations per notification event. */
const maxDestinationsPerEvent = 3;
const notificationEvents = ['on_start', 'on_success', 'on_failure'] as const;
export const projectTagKey = 'setpoint:project-id';
/** Carried by the cluster into its runs' reports, so a run is linked to the recommendation it tried. */
export const recommendationTagKey = 'setpoint:recommendation-id';

export interface OnboardingPlan {
  destinationId: string;
  /**
   * Where clusters without a `cluster_log_conf` will deliver their logs; undefined in agentless mode
   * (the workspace is read through system tables and its clusters are left without log delivery).
   */
  logDestination: string | undefined;
  /** The projects being created, one per job cluster. */
  projects: { ref: JobClusterRef; projectId: string }[];
  /** Projects of the job on no cluster of its own (its serverless tasks): tagged, nothing else changed. */
  otherProjectIds?: string[];
}

/**
 * What onboarding sends to jobs/update, and the snapshot that undoes it exactly. Top-level fields
 * are replaced whole by jobs/update, so they are sent complete; cluster entries are replaced whole
 * too, so each is sent with its other fields intact.
 */
export interface OnboardingChange {
  newSettings: JobSettings;
  /** Restores every field onboarding touched: `newSettings` for jobs/update plus fields to remove. */
  restore: { newSettings: JobSettings; fieldsToRemove: string[] };
}

export function clusterLogConf(destination: string): Record<string, unknown> {
  if (destination.startsWith('dbfs:/')) return { dbfs: { destination } };
  if (destination.startsWith('/Volumes/')) return { volumes: { destination } };
  if (destination.startsWith('s3://')) return { s3: { destination, enable_encryption: true } };
  throw new ValidationError(
    'INVALID_LOG_DESTINATION',
    `log destination must start with dbfs:/, /Volumes/ or s3://, got "${destination}"`,
  );
}

export function planOnboarding(settings: JobSettings, plan: OnboardingPlan): OnboardingChange {
  const newSettings: JobSettings = {};
  const restoreSettings: JobSettings = {};
  const fieldsToRemove: string[] = [];

  const notifications = structuredClone((settings.webhook_notifications ?? {}) as Record<string, unknown>);
  for (const event of notificationEvents) {
    const current = Array.isArray(notifications[event]) ? (notifications[event] as { id: string }[]) : [];
    if (current.some((destination) => destination.id === plan.destinationId)) continue;
    if (current.length >= maxDestinationsPerEvent) {
      throw new ConflictError(
        'NOTIFICATIONS_FULL',
        `the job already has ${maxDestinationsPerEvent} webhook destinations for ${event}; remove one so Setpoint can be notified`,
      );
    }
    notifications[event] = [...current, { id: plan.destinationId }];
  }
  newSettings.webhook_notifications = notifications;
  if (settings.webhook_notifications) restoreSettings.webhook_notifications = settings.webhook_notifications;
  else fieldsToRemove.push('webhook_notifications');

  const projectIds = [
    ...plan.projects.map((project) => project.projectId),
    ...(plan.otherProjectIds ?? []),
  ].join(',');
  newSettings.tags = { ...settings.tags, [projectTagKey]: projectIds };
  if (settings.tags) restoreSettings.tags = settings.tags;
  else fieldsToRemove.push('tags');

  const logConf = plan.logDestination === undefined ? undefined : clusterLogConf(plan.logDestination);
  const changedClusters: NonNullable<JobSettings['job_clusters']> = [];
  const originalClusters: NonNullable<JobSettings['job_clusters']> = [];
  const changedTasks: NonNullable<JobSettings['tasks']> = [];
  const originalTasks: NonNullable<JobSettings['tasks']> = [];
  for (const { ref, projectId } of plan.projects) {
    const spec = findClusterSpec(settings, ref);
    if (!spec)
      throw new ValidationError('JOB_CLUSTER_NOT_FOUND', `the job has no cluster ${clusterRefKey(ref)}`);
    const logDelivery = spec.cluster_log_conf ?? logConf;
    const changed = {
      ...spec,
      ...(logDelivery ? { cluster_log_conf: logDelivery } : {}),
      custom_tags: { ...spec.custom_tags, [projectTagKey]: projectId },
    };
    if (ref.kind === 'job_cluster') {
      const entry = settings.job_clusters?.find((cluster) => cluster.job_cluster_key === ref.jobClusterKey);
      changedClusters.push({ ...entry, job_cluster_key: ref.jobClusterKey, new_cluster: changed });
      originalClusters.push(structuredClone({ ...entry, job_cluster_key: ref.jobClusterKey }));
    } else {
      const task = settings.tasks?.find((candidate) => candidate.task_key === ref.taskKey);
      changedTasks.push({ ...task, task_key: ref.taskKey, new_cluster: changed });
      originalTasks.push(structuredClone({ ...task, task_key: ref.taskKey }));
    }
  }
  if (changedClusters.length) {
    newSettings.job_clusters = changedClusters;
    restoreSettings.job_clusters = originalClusters;
  }
  if (changedTasks.length) {
    newSettings.tasks = changedTasks;
    restoreSettings.tasks = originalTasks;
  }
  return { newSettings, restore: { newSettings: restoreSettings, fieldsToRemove } };
}
