import type { FastifyPluginAsync } from 'fastify';
import type { Metrics } from '../../composition/metrics.js';

export function metricsRoutes(metrics: Metrics, isPublic: boolean): FastifyPluginAsync {
  return async (app) => {
    app.get('/metrics', { config: { public: isPublic }, schema: { hide: true } }, async (_request, reply) => {
      const body = await metrics.registry.metrics();
      return reply.type(metrics.registry.contentType).send(body);
    });
  };
}
