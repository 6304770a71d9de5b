import { healthSchema } from '@setpoint/api-contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { setpointVersion } from '../../version.js';

export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/healthz',
    { config: { public: true }, schema: { hide: true, response: { 200: healthSchema } } },
    async () => ({
      status: 'ok' as const,
      version: setpointVersion,
    }),
  );
};
