import {
  idParams,
  recommendationListQuery,
  recommendationListSchema,
  recommendationParams,
  recommendationRequestBody,
  recommendationRequestedSchema,
  recommendationSchema,
} from '@setpoint/api-contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ApplyService } from '../../service/apply/apply-service.js';
import { principalOf } from '../../service/auth/principal.js';
import type { RecommendationService } from '../../service/recommendations/recommendation-service.js';
import { presentRecommendation } from './presenters.js';

const bearer = [{ bearerAuth: [] }];

export function recommendationRoutes(
  recommendations: RecommendationService,
  applies: Pick<ApplyService, 'request'>,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api/v1/projects/:id/recommendations',
      {
        schema: {
          tags: ['recommendations'],
          summary: 'Request a recommendation based on the latest processed run (or based_on_run_id)',
          security: bearer,
          params: idParams,
          body: recommendationRequestBody,
          response: { 202: recommendationRequestedSchema },
        },
      },
      async (request, reply) => {
        const rec = await recommendations.request(request.params.id, {
          actor: principalOf(request).actor,
          basedOnRunId: request.body?.based_on_run_id,
        });
        return reply.status(202).send({ id: rec.id, state: 'PENDING' as const });
      },
    );

    app.get(
      '/api/v1/projects/:id/recommendations',
      {
        schema: {
          tags: ['recommendations'],
          summary: 'List recommendations, newest first',
          security: bearer,
          params: idParams,
          querystring: recommendationListQuery,
          response: { 200: recommendationListSchema },
        },
      },
      async (request) => {
        const { items, total } = await recommendations.list(request.params.id, request.query);
        return {
          items: items.map(presentRecommendation),
          total,
          limit: request.query.limit,
          offset: request.query.offset,
        };
      },
    );

    app.get(
      '/api/v1/projects/:id/recommendations/latest',
      {
        schema: {
          tags: ['recommendations'],
          summary: 'The newest successful recommendation',
          security: bearer,
          params: idParams,
          response: { 200: recommendationSchema },
        },
      },
      async (request) => presentRecommendation(await recommendations.latest(request.params.id)),
    );

    app.get(
      '/api/v1/projects/:id/recommendations/:rid',
      {
        schema: {
          tags: ['recommendations'],
          summary: 'Get a recommendation',
          security: bearer,
          params: recommendationParams,
          response: { 200: recommendationSchema },
        },
      },
      async (request) =>
        presentRecommendation(await recommendations.get(request.params.id, request.params.rid)),
    );

    app.post(
      '/api/v1/projects/:id/recommendations/:rid/apply',
      {
        schema: {
          tags: ['recommendations'],
          summary:
            "Ask to apply a successful recommendation: recorded and queued; the write goes into the project's cluster",
          security: bearer,
          params: recommendationParams,
          response: { 202: recommendationSchema },
        },
      },
      async (request, reply) => {
        const rec = await applies.request(request.params.id, request.params.rid, principalOf(request).actor);
        return reply.status(202).send(presentRecommendation(rec));
      },
    );
  };
}
