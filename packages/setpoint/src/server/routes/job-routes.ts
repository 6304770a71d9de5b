import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../store/database-schema.js';
import { listOf, pageQuery } from './api-schemas.js';

const parkedJobSchema = z.object({
  id: z.number(),
  queue: z.string(),
  job_id: z.string(),
  kind: z.string(),
  payload: z.unknown(),
  error: z.string(),
  attempts: z.number(),
  created_at: z.number(),
});

/** Poison jobs: steps that used every attempt (or failed on bad input), with their last error. */
export function jobRoutes(db: Kysely<Database>): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/jobs/parked',
      {
        schema: {
          tags: ['jobs'],
          summary: 'Pipeline jobs parked after their last attempt, newest first',
          security: [{ bearerAuth: [] }],
          querystring: pageQuery,
          response: { 200: listOf(parkedJobSchema) },
        },
      },
      async (request) => {
        const [rows, count] = await Promise.all([
          db
            .selectFrom('parked_jobs')
            .selectAll()
            .orderBy('id', 'desc')
            .limit(request.query.limit)
            .offset(request.query.offset)
            .execute(),
          db
            .selectFrom('parked_jobs')
            .select((eb) => eb.fn.countAll<number>().as('count'))
            .executeTakeFirstOrThrow(),
        ]);
        return {
          items: rows.map((row) => ({ ...row, payload: JSON.parse(row.payload) as unknown })),
          total: Number(count.count),
          limit: request.query.limit,
          offset: request.query.offset,
        };
      },
    );
  };
}
