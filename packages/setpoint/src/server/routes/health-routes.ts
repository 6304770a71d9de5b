import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { setpointVersion } from '../../version.js';

export const healthResponseSchema = z.object({ status: z.literal('ok'), version: z.string() });

export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/healthz',
    { config: { public: true }, schema: { hide: true, response: { 200: healthResponseSchema } } },
    async () => ({
      status: 'ok' as const,
      version: setpointVersion,
    }),
  );
};
