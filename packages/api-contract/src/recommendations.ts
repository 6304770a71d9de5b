import { z } from 'zod';
import { idParams, listOf, pageQuery, rangeSchema } from './common.js';

export const recommendationStates = ['PENDING', 'SUCCESS', 'FAILURE'] as const;

export const recommendationSchema = z.object({
  id: z.string(),
  project_id: z.string(),
  state: z.enum(recommendationStates),
  phase: z.string().nullable(),
  /** What applying writes, in the platform's terms: for Databricks, a `new_cluster` fragment. */
  configuration: z.record(z.string(), z.unknown()).nullable(),
  predicted: z.object({ runtime_minutes: rangeSchema, cost_usd: rangeSchema }).nullable(),
  explanation: z.string().nullable(),
  based_on_run_id: z.string().nullable(),
  error: z.string().nullable(),
  requested_by: z.string(),
  applied: z.object({ requested_at: z.number(), requested_by: z.string().nullable() }).nullable(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type RecommendationResource = z.infer<typeof recommendationSchema>;

export const recommendationListSchema = listOf(recommendationSchema);
export const recommendationListQuery = pageQuery.extend({ state: z.enum(recommendationStates).optional() });
export const recommendationParams = idParams.extend({ rid: z.string().min(1).max(100) });

export const recommendationRequestBody = z
  .object({ based_on_run_id: z.string().max(100).optional() })
  .optional();
export const recommendationRequestedSchema = z.object({ id: z.string(), state: z.literal('PENDING') });
export type RecommendationRequested = z.infer<typeof recommendationRequestedSchema>;
