import type { ProjectSettings } from '@setpoint/api-contract';
import type * as gradient from '@setpoint/api-contract/gradient';
import type { Project } from '../../../service/projects/project-service.js';
import type { RecommendationRecord } from '../../../service/recommendations/recommendation-service.js';
import type { Run } from '../../../service/runs/run-service.js';

/** Gradient's timestamps: `YYYY-MM-DDTHH:MM:SSZ`, no fraction. */
export function gradientTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `job_clusters/<key>` | `tasks/<key>` (Gradient) ↔ `job_cluster:<key>` | `task:<key>` (Setpoint). */
export function clusterKeyFromPath(clusterPath: string | null | undefined): string | null | undefined {
  if (clusterPath === undefined || clusterPath === null) return clusterPath;
  const match = /^(job_clusters|tasks)\/(.+)$/.exec(clusterPath);
  if (!match) return clusterPath;
  return `${match[1] === 'tasks' ? 'task' : 'job_cluster'}:${match[2]}`;
}

export function clusterPathFromKey(clusterKey: string | null): string | null {
  if (!clusterKey) return null;
  const match = /^(job_cluster|task):(.+)$/.exec(clusterKey);
  if (!match) return clusterKey;
  return `${match[1] === 'task' ? 'tasks' : 'job_clusters'}/${match[2]}`;
}

type ProjectFields = import('zod').infer<typeof gradient.projectUpdateBody> &
  Partial<Pick<import('zod').infer<typeof gradient.projectCreateBody>, 'name'>>;

/** The Setpoint project input a Gradient create/update body stands for; absent fields stay absent. */
export function projectInputFromGradient(body: ProjectFields) {
  const settings: Partial<ProjectSettings> = {};
  const params = body.prediction_params;
  if (params?.sla_minutes !== undefined) settings.slaMinutes = params.sla_minutes;
  if (params?.force_ondemand_workers !== undefined)
    settings.spotPolicy = params.force_ondemand_workers ? 'on-demand-only' : 'spot-with-fallback';
  if (params?.fix_scaling_type !== undefined) settings.maintainScalingType = params.fix_scaling_type;
  if (body.auto_apply_recs !== undefined) settings.autoApply = body.auto_apply_recs;
  if (body.prediction_preference !== undefined) settings.preference = body.prediction_preference;
  return {
    ...(body.name !== undefined && { name: body.name }),
    ...(body.description !== undefined && { description: body.description }),
    ...(body.workspace_id !== undefined && { workspaceId: body.workspace_id }),
    ...(body.job_id !== undefined && { jobId: body.job_id === null ? null : String(body.job_id) }),
    ...(body.cluster_path !== undefined && { clusterKey: clusterKeyFromPath(body.cluster_path) }),
    ...(body.app_id !== undefined && { appId: body.app_id }),
    ...(Object.keys(settings).length > 0 && { settings }),
  };
}

export function presentGradientProject(project: Project) {
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    app_id: project.appId,
    job_id: project.jobId,
    cluster_path: clusterPathFromKey(project.clusterKey),
    workspace_id: project.workspaceId,
    auto_apply_recs: project.settings.autoApply,
    prediction_preference: project.settings.preference,
    prediction_params: {
      sla_minutes: project.settings.slaMinutes,
      force_ondemand_workers: project.settings.spotPolicy === 'on-demand-only',
      fix_scaling_type: project.settings.maintainScalingType,
    },
    product_code: 'aws-databricks',
    project_model_id: 'SETPOINT',
    phase: project.phase,
    created_at: gradientTime(project.createdAt),
    updated_at: gradientTime(project.updatedAt),
  };
}

/** Gradient's submission states; `FAILURE` is what its CLI treats as failed. */
export function submissionState(run: Run): 'SUCCESS' | 'FAILURE' | 'PENDING' {
  if (run.pipelineState === 'DONE') return 'SUCCESS';
  if (run.pipelineState === 'FAILED') return 'FAILURE';
  return 'PENDING';
}

export function presentSubmission(run: Run) {
  return {
    id: run.externalRunId,
    setpoint_run_id: run.id,
    project_id: run.projectId,
    state: submissionState(run),
    error: run.error,
    configuration: run.clusterConfig,
    created_at: gradientTime(run.createdAt),
    updated_at: gradientTime(run.updatedAt),
  };
}

export function presentGradientRecommendation(
  rec: RecommendationRecord,
  project: Project,
  latestSubmissionId: string | null,
) {
  const prediction = rec.prediction;
  return {
    id: rec.id,
    state: rec.state,
    error: rec.error,
    created_at: gradientTime(rec.createdAt),
    updated_at: gradientTime(rec.updatedAt),
    recommendation:
      rec.state === 'SUCCESS' && rec.configuration
        ? {
            metrics: prediction
              ? {
                  spark_duration_minutes: prediction.runtimeMinutes.mid,
                  // null while the job's bills are pending (a serverless job): never $0
                  spark_cost_requested_usd: prediction.costUsd?.mid ?? null,
                  spark_cost_lower_usd: prediction.costUsd?.low ?? null,
                  spark_cost_midpoint_usd: prediction.costUsd?.mid ?? null,
                  spark_cost_upper_usd: prediction.costUsd?.high ?? null,
                }
              : null,
            configuration: rec.configuration,
            prediction_params: { sla_minutes: project.settings.slaMinutes },
          }
        : null,
    context: { latest_submission_id: latestSubmissionId, phase: rec.phase ?? project.phase },
  };
}
