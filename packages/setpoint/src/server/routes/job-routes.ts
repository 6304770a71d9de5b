import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ParkedJobService } from '../../service/jobs/parked-job-service.js';
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
export function jobRoutes(parked: Pick<ParkedJobService, 'list'>): FastifyPluginAsyncZod {
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
        const { items, total } = await parked.list(request.query);
        return { items, total, limit: request.query.limit, offset: request.query.offset };
      },
    );
  };
}
