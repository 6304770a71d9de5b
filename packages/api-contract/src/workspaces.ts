import { z } from 'zod';

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
  check_sign_in: z
    .boolean()
    .optional()
    .describe(
      'sign in to the workspace before registering it: when its host does not answer (10 s) or refuses the credentials, nothing is registered (400 WORKSPACE_SIGN_IN_REFUSED, 502 WORKSPACE_UNREACHABLE). The CLI and the dashboard send true',
    ),
});
export type WorkspaceBody = z.input<typeof workspaceBody>;

/**
 * A partial update: only what is sent changes. No field has a default here (a default inside a partial
 * update would overwrite the stored value: an EMR account renamed became a Databricks workspace).
 */
export const workspacePatchBody = workspaceBody
  .omit({ platform: true, check_sign_in: true })
  .partial()
  .extend({ platform: z.enum(['databricks']).optional() });

/**
 * What may be shown of a workspace's settings: where it is, its plan, whether credentials are set (never
 * them). The same fields are a Databricks connection's `settings` (`GET /api/v1/connections/:id`).
 */
export const workspaceSettingsSchema = z.object({
  cloud: z.string(),
  region: z.string().nullable(),
  host: z.string().nullable(),
  plan_type: z.string().nullable(),
  compute_type: z.string().nullable(),
  has_credentials: z.boolean(),
  has_webhook_credentials: z.boolean(),
});
export type WorkspaceSettingsResource = z.infer<typeof workspaceSettingsSchema>;

export const workspaceSchema = z.object({
  id: z.string(),
  name: z.string(),
  platform: z.string(),
  ...workspaceSettingsSchema.shape,
  created_at: z.number(),
  updated_at: z.number(),
});
export type WorkspaceResource = z.infer<typeof workspaceSchema>;

export const workspaceListSchema = z.object({ items: z.array(workspaceSchema) });
