import { z } from 'zod';

/** RFC 6749 §5.1: what both the Databricks and the Entra ID token endpoints answer. */
export const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string().default('Bearer'),
  expires_in: z.coerce.number().positive(),
});

/** RFC 6749 §5.2 error body. */
export const tokenErrorSchema = z.object({
  error: z.string(),
  error_description: z.string().optional(),
});
