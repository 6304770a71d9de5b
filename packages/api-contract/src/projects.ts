import { z } from 'zod';
import { approvalSchema } from './approvals.js';
import { listOf, pageQuery } from './common.js';
import { projectPhases, projectSettingsResourceSchema, projectSettingsSchema } from './project-settings.js';
import { projectSummaryWireSchema } from './project-summary.js';

/** Wire shapes of /api/v1: snake_case resources; project settings keep their documented names. */
export const projectSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  workspace_id: z.string().nullable(),
  job_id: z.string().nullable(),
  cluster_key: z.string().nullable(),
  app_id: z.string().nullable(),
  settings: projectSettingsResourceSchema,
  phase: z.enum(projectPhases),
  /** When `POST /projects/:id/reset` last ran; earlier runs no longer teach the optimizer. */
  learning_reset_at: z.number().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
  /** Figures for the projects table (last run, runtime vs SLA, cost, savings, insights); on list pages. */
  summary: projectSummaryWireSchema.optional(),
  /** The recommendation waiting for a person's approval before Setpoint writes it (apply mode `approve-learning`), or null. */
  awaiting_approval: approvalSchema.nullable().optional(),
  /**
   * PATCH only: the recommendation requested because the update changed a setting the one in force was
   * decided on (SLA, preference, bounds, instances, spot, Photon); null when nothing is decided again.
   */
  decided_again: z.object({ recommendation_id: z.string() }).nullable().optional(),
});
export type ProjectResource = z.infer<typeof projectSchema>;

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
export type ProjectCreateBody = z.infer<typeof projectCreateBody>;

export const projectPatchBody = projectCreateBody.partial();
export type ProjectPatchBody = z.infer<typeof projectPatchBody>;

export const projectListQuery = pageQuery.extend({
  q: z.string().max(200).optional().describe('name contains'),
  workspace_id: z.string().optional(),
  app_id: z.string().max(200).optional().describe('exactly this app id'),
  phase: z.enum(projectPhases).optional(),
  sort: z
    .enum(['name', '-name', 'created_at', '-created_at', 'updated_at', '-updated_at'])
    .default('-created_at'),
});

export const projectListSchema = listOf(projectSchema);

export const auditEntrySchema = z.object({
  action: z.string(),
  actor: z.string(),
  detail: z.record(z.string(), z.unknown()),
  created_at: z.number(),
});
export const projectAuditSchema = z.object({ items: z.array(auditEntrySchema) });
export type AuditEntryResource = z.infer<typeof auditEntrySchema>;
