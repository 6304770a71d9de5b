import { organizationSummaryQuery, organizationSummaryWireSchema } from '@setpoint/api-contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { InsightsService } from '../../service/insights/insights-service.js';

const dayMs = 86_400_000;

export function insightsRoutes(
  insights: Pick<InsightsService, 'organizationSummary'>,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/insights/summary',
      {
        schema: {
          tags: ['insights'],
          summary:
            'Spend in a period (cloud vs DBU), savings to date and projected 12-month savings across projects, at the organization’s discounted prices',
          security: [{ bearerAuth: [] }],
          querystring: organizationSummaryQuery,
          response: { 200: organizationSummaryWireSchema },
        },
      },
      async (request) => {
        const to = request.query.to ?? Date.now();
        const from = request.query.from ?? to - 30 * dayMs;
        return insights.organizationSummary(from, to);
      },
    );
  };
}
