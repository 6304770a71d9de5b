import { projectSummaryWireSchema } from '@setpoint/insights';
import { z } from 'zod';
import type { Project } from '../../service/projects/project-service.js';
import { projectPhases, projectSettingsSchema } from '../../service/projects/project-settings.js';
import type { RecommendationRecord } from '../../service/recommendations/recommendation-service.js';
import type { Run, RunDetail } from '../../service/runs/run-service.js';
import type { Workspace } from '../../service/workspaces/workspace-service.js';

/** Wire shapes of /api/v1: snake_case resources; project settings keep their documented names. */
export const idParams = z.object({ id: z.string().min(1).max(100) });

export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

const range = z.object({ low: z.number(), mid: z.number(), high: z.number() });

export const projectSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  workspace_id: z.string().nullable(),
  job_id: z.string().nullable(),
  cluster_key: z.string().nullable(),
  app_id: z.string().nullable(),
  settings: z.record(z.string(), z.unknown()),
  phase: z.enum(projectPhases),
  /** When `POST /projects/:id/reset` last ran; earlier runs no longer teach the optimizer. */
  learning_reset_at: z.number().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
  /** Figures for the projects table (last run, runtime vs SLA, cost, savings, insights); on list pages. */
  summary: projectSummaryWireSchema.optional(),
});

const settingsInput = z
  .record(z.string(), z.unknown())
  .describe(`project settings: ${Object.keys(projectSettingsSchema.shape).join(', ')}`);

export const projectCreateBody = z.object({
  name: z.string().min(1).max(200),
  description: z.string().max(2000).nullable().optional(),
  workspace_id: z.string().nullable().optional(),
  job_id: z.string().max(100).nullable().optional(),
  cluster_key: z.string().max(200).nullable().optional(),
  app_id: z.string().max(200).nullable().optional(),
  settings: settingsInput.optional(),
});

export const projectPatchBody = projectCreateBody.partial();

export const projectListQuery = pageQuery.extend({
  q: z.string().max(200).optional().describe('name contains'),
  workspace_id: z.string().optional(),
  app_id: z.string().max(200).optional().describe('exactly this app id'),
  phase: z.enum(projectPhases).optional(),
  sort: z
    .enum(['name', '-name', 'created_at', '-created_at', 'updated_at', '-updated_at'])
    .default('-created_at'),
});

export function presentProject(project: Project): z.infer<typeof projectSchema> {
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    workspace_id: project.workspaceId,
    job_id: project.jobId,
    cluster_key: project.clusterKey,
    app_id: project.appId,
    settings: project.settings,
    phase: project.phase,
    learning_reset_at: project.learningResetAt,
    created_at: project.createdAt,
    updated_at: project.updatedAt,
  };
}

export const runSchema = z.object({
  id: z.string(),
  project_id: z.string(),
  external_run_id: z.string(),
  pipeline_state: z.string(),
  status: z.string().nullable(),
  started_at: z.number().nullable(),
  ended_at: z.number().nullable(),
  cluster: z.record(z.string(), z.unknown()).nullable(),
  cluster_config: z.record(z.string(), z.unknown()).nullable(),
  eventlog_uri: z.string().nullable(),
  eventlog_bytes: z.number().nullable(),
  input_bytes: z.number().nullable(),
  cost: z
    .object({
      currency: z.literal('USD'),
      total_usd: z.number(),
      lines: z.array(z.object({ item: z.string(), usd: z.number() })),
    })
    .nullable(),
  on_recommendation_id: z.string().nullable(),
  error: z.string().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
});

export const runDetailSchema = runSchema.extend({
  cluster_timeline: z.unknown(),
  profile_summary: z.record(z.string(), z.unknown()).nullable(),
});

export function presentRun(run: Run): z.infer<typeof runSchema> {
  return {
    id: run.id,
    project_id: run.projectId,
    external_run_id: run.externalRunId,
    pipeline_state: run.pipelineState,
    status: run.status,
    started_at: run.startedAt,
    ended_at: run.endedAt,
    cluster: run.clusterFacts ? { ...run.clusterFacts } : null,
    cluster_config: run.clusterConfig,
    eventlog_uri: run.eventlogUri,
    eventlog_bytes: run.eventlogBytes,
    input_bytes: run.inputBytes,
    cost: run.cost ? { currency: 'USD', total_usd: run.cost.totalUsd, lines: run.cost.lines } : null,
    on_recommendation_id: run.recommendationId,
    error: run.error,
    created_at: run.createdAt,
    updated_at: run.updatedAt,
  };
}

export function presentRunDetail(run: RunDetail): z.infer<typeof runDetailSchema> {
  return {
    ...presentRun(run),
    cluster_timeline: run.clusterTimeline,
    profile_summary: run.profileSummary ? { ...run.profileSummary } : null,
  };
}

export const recommendationSchema = z.object({
  id: z.string(),
  project_id: z.string(),
  state: z.enum(['PENDING', 'SUCCESS', 'FAILURE']),
  phase: z.string().nullable(),
  configuration: z.record(z.string(), z.unknown()).nullable(),
  predicted: z.object({ runtime_minutes: range, cost_usd: range }).nullable(),
  explanation: z.string().nullable(),
  based_on_run_id: z.string().nullable(),
  error: z.string().nullable(),
  requested_by: z.string(),
  applied: z.object({ requested_at: z.number(), requested_by: z.string().nullable() }).nullable(),
  created_at: z.number(),
  updated_at: z.number(),
});

export function presentRecommendation(rec: RecommendationRecord): z.infer<typeof recommendationSchema> {
  return {
    id: rec.id,
    project_id: rec.projectId,
    state: rec.state,
    phase: rec.phase,
    configuration: rec.configuration,
    predicted: rec.prediction
      ? { runtime_minutes: rec.prediction.runtimeMinutes, cost_usd: rec.prediction.costUsd }
      : null,
    explanation: rec.explanation,
    based_on_run_id: rec.basedOnRunId,
    error: rec.error,
    requested_by: rec.requestedBy,
    applied:
      rec.applyRequestedAt === null
        ? null
        : { requested_at: rec.applyRequestedAt, requested_by: rec.applyRequestedBy },
    created_at: rec.createdAt,
    updated_at: rec.updatedAt,
  };
}

const secretMap = z.record(z.string().min(1).max(100), z.string().max(10_000));

export const workspaceBody = z.object({
  name: z.string().min(1).max(200),
  platform: z.enum(['databricks']).default('databricks'),
  cloud: z.enum(['aws', 'azure', 'gcp']),
  region: z.string().max(100).nullable().optional(),
  host: z.string().max(500).nullable().optional(),
  plan_type: z.enum(['Standard', 'Premium', 'Enterprise']).nullable().optional(),
  compute_type: z.string().max(100).nullable().optional(),
  credentials: secretMap.nullable().optional().describe('write-only; encrypted at rest'),
  webhook_credentials: secretMap.nullable().optional().describe('write-only; encrypted at rest'),
});

export const workspacePatchBody = workspaceBody.partial();

export const workspaceSchema = z.object({
  id: z.string(),
  name: z.string(),
  platform: z.string(),
  cloud: z.string(),
  region: z.string().nullable(),
  host: z.string().nullable(),
  plan_type: z.string().nullable(),
  compute_type: z.string().nullable(),
  has_credentials: z.boolean(),
  has_webhook_credentials: z.boolean(),
  created_at: z.number(),
  updated_at: z.number(),
});

export function presentWorkspace(workspace: Workspace): z.infer<typeof workspaceSchema> {
  return {
    id: workspace.id,
    name: workspace.name,
    platform: workspace.platform,
    cloud: workspace.cloud,
    region: workspace.region,
    host: workspace.host,
    plan_type: workspace.planType,
    compute_type: workspace.computeType,
    has_credentials: workspace.hasCredentials,
    has_webhook_credentials: workspace.hasWebhookCredentials,
    created_at: workspace.createdAt,
    updated_at: workspace.updatedAt,
  };
}

export const listOf = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  });
