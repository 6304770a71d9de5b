import { isObject, type JsonObject } from '../json-fields.js';
import { type Violation, violationsOf } from '../rule.js';
import { type ClusterSpecJson, databricksClusterRules } from './cluster-rules.js';
import type { DatabricksWorkspaceFacts } from './workspace-facts.js';

/** The violations of one `new_cluster`. */
export function checkClusterSpec(cluster: ClusterSpecJson, facts: DatabricksWorkspaceFacts): Violation[] {
  return violationsOf(databricksClusterRules, cluster, facts);
}

/** Every `new_cluster` of job settings (or a runs/submit body), with the path it sits at. */
export function clustersOfJob(settings: JsonObject): { path: string; cluster: ClusterSpecJson }[] {
  const found: { path: string; cluster: ClusterSpecJson }[] = [];
  const jobClusters = Array.isArray(settings.job_clusters) ? settings.job_clusters : [];
  jobClusters.forEach((entry: unknown, index) => {
    if (isObject(entry) && isObject(entry.new_cluster))
      found.push({ path: `job_clusters[${index}].new_cluster`, cluster: entry.new_cluster });
  });
  const tasks = Array.isArray(settings.tasks) ? settings.tasks : [];
  tasks.forEach((task: unknown, index) => {
    if (isObject(task) && isObject(task.new_cluster))
      found.push({ path: `tasks[${index}].new_cluster`, cluster: task.new_cluster });
  });
  return found;
}

/** The violations of every cluster of job settings, each field path prefixed with where its cluster sits. */
export function checkJobSettings(settings: JsonObject, facts: DatabricksWorkspaceFacts): Violation[] {
  return clustersOfJob(settings).flatMap(({ path, cluster }) =>
    checkClusterSpec(cluster, facts).map((violation) => ({
      ...violation,
      field: `${path}.${violation.field}`,
    })),
  );
}
