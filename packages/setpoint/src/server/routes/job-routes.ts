import { pageQuery, parkedJobListSchema } from '@setpoint/api-contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ParkedJobService } from '../../service/jobs/parked-job-service.js';

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
          response: { 200: parkedJobListSchema },
        },
      },
      async (request) => {
        const { items, total } = await parked.list(request.query);
        return { items, total, limit: request.query.limit, offset: request.query.offset };
      },
    );
  };
}
