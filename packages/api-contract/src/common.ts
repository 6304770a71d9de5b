import { z } from 'zod';

/** `:id` of a resource. */
export const idParams = z.object({ id: z.string().min(1).max(100) });

export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

/** One page of a list: the items, how many there are in all, and which slice this is. */
export const listOf = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  });

export type Page<T> = { items: T[]; total: number; limit: number; offset: number };

/** A predicted quantity: its 10th, 50th and 90th percentile. */
export const rangeSchema = z.object({ low: z.number(), mid: z.number(), high: z.number() });

/** Every 4xx and 5xx answer. */
export const errorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;
