import {
  idParams,
  proposeResponseSchema,
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
import type { ProposalService } from '../../service/code/proposal-service.js';
import type { RecommendationService } from '../../service/recommendations/recommendation-service.js';
import { presentProposal } from './code-routes.js';
import { presentRecommendation } from './presenters.js';

const bearer = [{ bearerAuth: [] }];

export function recommendationRoutes(
  recommendations: RecommendationService,
  applies: Pick<ApplyService, 'request'>,
  proposals: Pick<ProposalService, 'get'>,
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
          pinned: request.body?.based_on_run_id !== undefined,
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
            "Ask to apply a successful recommendation: recorded and queued (202), the write goes into the project's cluster; where its configuration lives in code, the proposal there is opened or updated (201, or 200 when the code already holds it)",
          security: bearer,
          params: recommendationParams,
          response: { 200: proposeResponseSchema, 201: proposeResponseSchema, 202: recommendationSchema },
        },
      },
      async (request, reply) => {
        const { id, rid } = request.params;
        const { recommendation, handedOff } = await applies.request(id, rid, principalOf(request).actor);
        if (!handedOff) return reply.status(202).send(presentRecommendation(recommendation));
        const proposal = handedOff.proposalId ? await proposals.get(id, handedOff.proposalId) : null;
        return reply
          .status(proposal ? 201 : 200)
          .send({ proposal: proposal && presentProposal(proposal), message: handedOff.message });
      },
    );
  };
}
