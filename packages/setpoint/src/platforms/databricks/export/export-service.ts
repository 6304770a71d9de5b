import type { ExportFormat } from '@setpoint/api-contract';
import { terraformResourceName } from '../../../export/hcl-writer.js';
import type { Project } from '../../../service/projects/project-records.js';
import type { RecommendationRecord } from '../../../service/recommendations/recommendation-records.js';
import { predictionLine } from '../../../service/recommender/prediction-words.js';
import type { NewClusterSpec } from '../api/schema.js';
import type { ConnectWorkspace } from '../connection/workspace-connection.js';
import { withManagedFields } from '../jobs/apply-cluster-change.js';
import { findClusterSpec, parseClusterRefKey } from '../jobs/job-clusters.js';
import { managedFieldsOf } from '../jobs/managed-fields.js';
import { assertClusterAccepted } from '../validity/accepted-cluster.js';
import { databricksWorkspaceFacts } from '../validity/workspace-facts.js';
import { checkBeforeWrite } from '../validity/write-check.js';
import { exportTerraform } from './terraform-export.js';

export type ExportDatabricksRecommendation = (
  project: Project,
  recommendation: RecommendationRecord,
  format: ExportFormat,
) => Promise<string>;

/**
 * A recommendation as Terraform (the `new_cluster` block plus `ignore_changes` for the managed
 * fields, indexed like the job's own list) or as the JSON fragment Setpoint would write. Either is a write
 * that lands later, so a cluster Databricks would refuse is not exported (`CLUSTER_INVALID`).
 */
export function createExportService(deps: { connect: ConnectWorkspace }): ExportDatabricksRecommendation {
  return async function exportRecommendation(project, rec, format) {
    const managed = managedFieldsOf(rec.configuration ?? {});
    const ref = (project.clusterKey ? parseClusterRefKey(project.clusterKey) : undefined) ?? {
      kind: 'job_cluster' as const,
      jobClusterKey: project.clusterKey ?? 'main',
    };
    const what = `the export of recommendation ${rec.id}`;
    let position = 0;
    let jobName = project.name;
    if (project.workspaceId && project.jobId) {
      const connection = await deps.connect(project.workspaceId);
      const job = await connection.client.getJob(project.jobId);
      jobName = job.settings.name ?? jobName;
      const list: { job_cluster_key?: string; task_key?: string }[] =
        ref.kind === 'job_cluster' ? (job.settings.job_clusters ?? []) : (job.settings.tasks ?? []);
      position = Math.max(
        0,
        list.findIndex((entry) =>
          ref.kind === 'job_cluster'
            ? entry.job_cluster_key === ref.jobClusterKey
            : entry.task_key === ref.taskKey,
        ),
      );
      // the cluster is checked as it would be written into the job, against the workspace it runs in
      const spec = findClusterSpec(job.settings, ref);
      const written = spec
        ? withManagedFields(spec, managed, { maintainScalingType: false })
        : (managed as NewClusterSpec);
      await checkBeforeWrite(connection, written, what, spec ?? null);
    } else {
      const cloud = managed.azure_attributes ? 'azure' : 'aws';
      assertClusterAccepted(managed as NewClusterSpec, databricksWorkspaceFacts({ cloud }), what);
    }
    if (format === 'json')
      return `${JSON.stringify({ project: project.id, recommendation: rec.id, new_cluster: managed }, null, 2)}\n`;
    const prediction = rec.prediction;
    return exportTerraform({
      resourceName: terraformResourceName(jobName),
      ref,
      position,
      cluster: managed,
      header: [
        `Setpoint recommendation ${rec.id} for project "${project.name}" (${project.id})`,
        ...(prediction ? [predictionLine(prediction)] : []),
        'Merge the new_cluster values and the lifecycle block into your databricks_job resource.',
      ],
    });
  };
}
