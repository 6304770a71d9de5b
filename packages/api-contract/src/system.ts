import { z } from 'zod';
import { listOf } from './common.js';

export const healthSchema = z.object({ status: z.literal('ok'), version: z.string() });

export const systemInfoSchema = z.object({
  version: z.string(),
  database: z.enum(['sqlite', 'postgres']),
  projects: z.number().int().nonnegative(),
});
export type SystemInfo = z.infer<typeof systemInfoSchema>;

/** A job that used every attempt or failed on bad input, with its last error. */
export const parkedJobSchema = z.object({
  id: z.number(),
  queue: z.string(),
  job_id: z.string(),
  kind: z.string(),
  payload: z.unknown(),
  error: z.string(),
  attempts: z.number(),
  created_at: z.number(),
});
export const parkedJobListSchema = listOf(parkedJobSchema);
