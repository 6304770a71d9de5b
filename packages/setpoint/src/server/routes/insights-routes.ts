import {
  organizationSummaryQuery,
  organizationSummaryWireSchema,
  spendReportWireSchema,
} from '@setpoint/api-contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { InsightsService } from '../../service/insights/insights-service.js';

const dayMs = 86_400_000;

/** The period a query names: `to` defaults to now, `from` to 30 days before it. */
function periodOf(query: { from?: number | undefined; to?: number | undefined }) {
  const to = query.to ?? Date.now();
  return { from: query.from ?? to - 30 * dayMs, to };
}

export function insightsRoutes(
  insights: Pick<InsightsService, 'organizationSummary' | 'spendReport'>,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/insights/summary',
      {
        schema: {
          tags: ['insights'],
          summary:
            'Spend in a period by kind (compute, platform fees, storage, network, other), by fee and by platform, savings to date and projected 12-month savings across projects, at the organization’s discounted prices',
          security: [{ bearerAuth: [] }],
          querystring: organizationSummaryQuery,
          response: { 200: organizationSummaryWireSchema },
        },
      },
      async (request) => {
        const { from, to } = periodOf(request.query);
        return insights.organizationSummary(from, to);
      },
    );

    app.get(
      '/api/v1/insights/spend',
      {
        schema: {
          tags: ['insights'],
          summary:
            'The ledger of a period: the organization’s spend by kind and every project’s, which add up to it, at the organization’s discounted prices',
          security: [{ bearerAuth: [] }],
          querystring: organizationSummaryQuery,
          response: { 200: spendReportWireSchema },
        },
      },
      async (request) => {
        const { from, to } = periodOf(request.query);
        return insights.spendReport(from, to);
      },
    );
  };
}
