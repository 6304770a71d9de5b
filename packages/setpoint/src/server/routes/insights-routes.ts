import { organizationSummaryWireSchema } from '@setpoint/insights';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { discountedOrganizationSummary } from '../../organization/discounted-summary.js';
import type { Project } from '../../projects/project-service.js';
import type { Services } from '../compose-services.js';
import { organizationSummary } from '../project-summaries.js';

const dayMs = 86_400_000;

export function insightsRoutes(
  services: Pick<Services, 'projects' | 'store' | 'workspaces' | 'organizationSettings'>,
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
        // Discounts differ per cloud, so each cloud's projects are summed at list price first.
        const cloudOf = new Map((await services.workspaces.list()).map((w) => [w.id, w.cloud]));
        const byCloud = new Map<string | null, Project[]>();
        for (const project of all) {
          const cloud = (project.workspaceId && cloudOf.get(project.workspaceId)) || null;
          byCloud.set(cloud, [...(byCloud.get(cloud) ?? []), project]);
        }
        if (byCloud.size === 0) byCloud.set(null, []);
        const summaries = await Promise.all(
          [...byCloud].map(async ([cloud, projects]) => ({
            cloud,
            summary: await organizationSummary(services.store.db, projects, from, to),
          })),
        );
        const { settings } = await services.organizationSettings.get();
        return discountedOrganizationSummary({ from, to }, summaries, settings);
      },
    );
  };
}
