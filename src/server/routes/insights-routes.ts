import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { organizationSummaryWireSchema } from '../../insights/summary-wire.js';
import type { Services } from '../compose-services.js';
import { organizationSummary } from '../project-summaries.js';

const dayMs = 86_400_000;

export function insightsRoutes(services: Pick<Services, 'projects' | 'store'>): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/insights/summary',
      {
        schema: {
          tags: ['insights'],
          summary:
            'Spend in a period (cloud vs DBU), savings to date and projected 12-month savings across projects',
          security: [{ bearerAuth: [] }],
          querystring: z.object({
            from: z.coerce.number().int().optional(),
            to: z.coerce.number().int().optional(),
          }),
          response: { 200: organizationSummaryWireSchema },
        },
      },
      async (request) => {
        const to = request.query.to ?? Date.now();
        const from = request.query.from ?? to - 30 * dayMs;
        const all = [];
        for (let offset = 0; ; offset += 500) {
          const page = await services.projects.list({ limit: 500, offset, sort: 'created_at' });
          all.push(...page.items);
          if (all.length >= page.total || page.items.length === 0) break;
        }
        return organizationSummary(services.store.db, all, from, to);
      },
    );
  };
}
