import { z } from 'zod';

/**
 * Request shapes of Sync Computing's Gradient API (`syncsparkpy`), as far as Setpoint serves them under
 * `/v1`. Its answers keep Gradient's envelope and names (`{"result": …}`).
 */

export const tokenBody = z.object({
  api_key_id: z.string().min(1),
  api_key_secret: z.string().min(1),
});

export const predictionParams = z
  .object({
    sla_minutes: z.number().positive().nullable().optional(),
    force_ondemand_workers: z.boolean().optional(),
    fix_scaling_type: z.boolean().optional(),
  })
  .loose();

const projectFields = {
  description: z.string().max(2000).nullable().optional(),
  job_id: z.union([z.string(), z.number()]).nullable().optional(),
  cluster_path: z.string().nullable().optional(),
  workspace_id: z.string().nullable().optional(),
  cluster_log_url: z.string().nullable().optional(),
  auto_apply_recs: z.boolean().optional(),
  prediction_params: predictionParams.nullable().optional(),
  prediction_preference: z.enum(['performance', 'balanced', 'economy']).optional(),
  app_id: z.string().nullable().optional(),
  optimize_instance_size: z.boolean().optional(),
};

/** A project's name, as `/api/v1` takes it: text of 1–200 characters, not only blanks. */
const projectName = z.string().min(1).max(200).regex(/\S/, 'must not be blank');

export const projectCreateBody = z
  .object({
    name: projectName,
    product_code: z.string().optional(),
    ...projectFields,
  })
  .loose();

/** Every field optional; a `name` that is sent is checked like a new project's (it used to pass unchecked). */
export const projectUpdateBody = z.object({ name: projectName.optional(), ...projectFields }).loose();

export const projectListQuery = z.object({ app_id: z.string().optional() });

export const submissionBody = z
  .object({
    product_code: z.string().optional(),
    product: z.string().optional(),
    cluster_report: z.unknown().optional(),
    event_log_uri: z.string().min(1).max(2000).optional(),
  })
  .loose();

export const pageQuery = z.object({
  page: z.coerce.number().int().min(0).default(0),
  per_page: z.coerce.number().int().min(1).max(500).default(50),
});

export const projectParams = z.object({ id: z.string() });
export const submissionParams = z.object({ id: z.string(), submissionId: z.string() });
export const recommendationParams = z.object({ id: z.string(), recommendationId: z.string() });
