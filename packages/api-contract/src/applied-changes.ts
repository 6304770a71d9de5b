import { z } from 'zod';

/**
 * What Setpoint wrote into a project's cluster on every platform: its history of applied configurations,
 * whether auto-apply is paused, rolling back, resuming auto-apply and exporting a recommendation
 * (`/api/v1/projects/:id/{applied-configs,rollback,resume-auto-apply,export}`).
 */

/**
 * `baseline`: the configuration found (at import, or changed outside Setpoint); `apply`, `auto-apply`: a
 * recommendation written; `rollback`: a person went back; `revert`: the SLA guard went back after a bad run.
 */
export const appliedChangeKinds = ['baseline', 'apply', 'auto-apply', 'rollback', 'revert'] as const;
export type AppliedChangeKind = (typeof appliedChangeKinds)[number];

export const appliedConfigSchema = z.object({
  id: z.string(),
  recommendation_id: z.string().nullable(),
  kind: z.enum(appliedChangeKinds),
  /** The platform of the project's workspace that was written (`databricks`, `emr`). */
  platform: z.string(),
  /**
   * What the platform recorded, in its own terms: the whole `new_cluster` as written (Databricks), or the
   * cluster resized with each action's value before and after (EMR: `cluster_id`, `actions`).
   */
  cluster: z.record(z.string(), z.unknown()),
  /** The configuration in one line, for tables ("m5.xlarge · 4 workers · SPOT_WITH_FALLBACK"). */
  summary: z.string(),
  /** The change a rollback or revert undid, when the platform undoes changes one by one. */
  undoes: z.string().nullable(),
  actor: z.string(),
  reason: z.string(),
  created_at: z.number(),
  /** When a run on it first met the project's SLA; null while none has (a rollback goes to the newest that did). */
  met_sla_at: z.number().nullable(),
});
export type AppliedConfigResource = z.infer<typeof appliedConfigSchema>;

export const appliedConfigListSchema = z.object({
  /** Oldest first. */
  items: z.array(appliedConfigSchema),
  /**
   * Who writes the project's cluster: `setpoint` (it applies, rolls back and reverts), or `launcher` (each
   * launch takes a recommendation: a transient cluster, a run submitted with its own cluster; the history
   * records the launches that took one, and there is nothing for Setpoint to roll back).
   */
  writer: z.enum(['setpoint', 'launcher']),
  auto_apply_paused: z.boolean(),
  pause_reason: z.string().nullable(),
});
export type AppliedConfigListResource = z.infer<typeof appliedConfigListSchema>;

export const rollbackBody = z
  .object({
    /**
     * The applied configuration to go back to (default: the newest before the one in place whose runs met
     * the SLA, the cold start if none did).
     */
    to: z.string().min(1).max(100).optional(),
  })
  .default({});
export type RollbackBody = z.input<typeof rollbackBody>;

export const rollbackSchema = z.object({
  /** The newest entry the rollback recorded. */
  config: appliedConfigSchema,
  /** Every entry it recorded, oldest first (one per change undone where the platform undoes them one by one). */
  undone: z.array(appliedConfigSchema),
  /** The settings it changed. */
  changed_fields: z.array(z.string()),
  /** A person's rollback pauses auto-apply until someone resumes it. */
  auto_apply_paused: z.boolean(),
  pause_reason: z.string().nullable(),
});
export type RollbackResource = z.infer<typeof rollbackSchema>;

export const resumeAutoApplySchema = z.object({ resumed: z.literal(true) });
export type ResumeAutoApplyResource = z.infer<typeof resumeAutoApplySchema>;

export const exportFormats = ['terraform', 'json'] as const;
export type ExportFormat = (typeof exportFormats)[number];

export const exportQuery = z.object({
  /** Default: the platform's (Terraform for Databricks, the RunJobFlow JSON for EMR). */
  format: z.enum(exportFormats).optional(),
  /** Which recommendation (default: the latest successful one). */
  recommendation: z.string().max(100).optional(),
});
export type ExportQuery = z.infer<typeof exportQuery>;
