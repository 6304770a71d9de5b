import { z } from 'zod';

/** A project's code: where its configuration lives (`/source`) and the changes Setpoint proposes there (`/iac/…`). */

export const codeFormatSchema = z.enum(['terraform', 'bundle', 'airflow']);
export const forgeKindSchema = z.enum(['github', 'gitlab', 'none']);

export const projectSourceSchema = z.object({
  project_id: z.string(),
  format: codeFormatSchema,
  /** A git remote (https, ssh, or a path on the Setpoint server). */
  repository: z.string(),
  path: z.string(),
  /** The branch proposals merge into; null: the remote's default branch. */
  branch: z.string().nullable(),
  /** The Terraform resource (`databricks_job.orders`), bundle job key or DAG task id. */
  address: z.string().nullable(),
  /** The deployed bundle target. */
  target: z.string().nullable(),
  tfvars: z.string().nullable(),
  forge: forgeKindSchema,
  forge_api_url: z.string().nullable(),
  /** Whether a forge token is stored (the token itself is never returned). */
  token_set: z.boolean(),
  /** The team lets Setpoint also write the job through the platform's API. */
  api_writes: z.boolean(),
  /** `link`: set by a user; `tag`: read from the job's `setpoint:source` tag. */
  origin: z.enum(['link', 'tag']),
  created_by: z.string(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});
export type ProjectSourceResource = z.infer<typeof projectSourceSchema>;

export const projectSourceViewSchema = z.object({
  source: projectSourceSchema.nullable(),
  /** What the platform's API says about the job, when it says anything. */
  declared: z
    .object({
      deployed_from: z.enum(['bundle']).nullable(),
      locked: z.boolean(),
      source_tag: z.string().nullable(),
    })
    .nullable(),
  tag_problem: z.string().nullable(),
  /** Where a change to the cluster goes: the platform's API, a proposal in the code, or nowhere (said why). */
  route: z.enum(['api', 'code', 'refuse']),
  route_reason: z.string().nullable(),
});
export type ProjectSourceView = z.infer<typeof projectSourceViewSchema>;

export const linkSourceBody = z.object({
  repository: z.string().min(1).max(1000),
  path: z.string().min(1).max(1000),
  format: codeFormatSchema.optional(),
  branch: z.string().max(255).nullable().optional(),
  address: z.string().max(255).nullable().optional(),
  target: z.string().max(255).nullable().optional(),
  tfvars: z.string().max(1000).nullable().optional(),
  forge: forgeKindSchema.optional(),
  forge_api_url: z.string().url().max(1000).nullable().optional(),
  /** Write-only: a new token replaces the stored one, null removes it, absent keeps it. */
  token: z.string().min(1).max(1000).nullable().optional(),
  api_writes: z.boolean().optional(),
});
export type LinkSourceBody = z.infer<typeof linkSourceBody>;

export const codeDiffQuery = z.object({ recommendation: z.string().min(1).max(100).optional() });

export const codeDiffSchema = z.object({
  recommendation_id: z.string(),
  format: codeFormatSchema,
  repository: z.string(),
  path: z.string(),
  /** A unified diff as `git diff` writes it; empty when the code already holds the recommendation. */
  diff: z.string(),
  files: z.array(z.string()),
  /** Where values were written when not in the file itself (a variable's default, a .tfvars entry). */
  notes: z.array(z.string()),
});
export type CodeDiffResource = z.infer<typeof codeDiffSchema>;

export const proposeBody = z.object({ recommendation_id: z.string().min(1).max(100).optional() });

export const codeProposalSchema = z.object({
  id: z.string(),
  project_id: z.string(),
  recommendation_id: z.string(),
  /** open → merged → applied (the platform runs it); or closed, or superseded by a newer proposal. */
  state: z.enum(['open', 'merged', 'applied', 'closed', 'superseded']),
  repository: z.string(),
  branch: z.string(),
  base_branch: z.string(),
  commit_sha: z.string(),
  forge: forgeKindSchema,
  /** The pull request number (GitHub) or merge request iid (GitLab); null for a branch only. */
  number: z.number().int().nullable(),
  url: z.string().nullable(),
  files: z.array(z.string()),
  diff: z.string(),
  created_by: z.string(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
  merged_at: z.number().int().nullable(),
  applied_at: z.number().int().nullable(),
});
export type CodeProposalResource = z.infer<typeof codeProposalSchema>;

export const proposeResponseSchema = z.object({
  /** Null when the code already holds the recommendation: nothing to review. */
  proposal: codeProposalSchema.nullable(),
  message: z.string(),
});
export type ProposeResponse = z.infer<typeof proposeResponseSchema>;

export const proposalListQuery = z.object({
  /** Ask the forge and the platform first: merged, closed or applied since last looked. */
  refresh: z.enum(['true', 'false']).optional(),
});
export const proposalListSchema = z.object({ items: z.array(codeProposalSchema) });
