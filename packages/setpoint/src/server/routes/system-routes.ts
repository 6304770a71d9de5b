import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { StoreConnection } from '../../store/open-database.js';
import { setpointVersion } from '../../version.js';

export const systemInfoSchema = z.object({
  version: z.string(),
  database: z.enum(['sqlite', 'postgres']),
  projects: z.number().int().nonnegative(),
});

export function systemRoutes(store: StoreConnection): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/system',
      {
        schema: {
          tags: ['system'],
          summary: 'Version and storage backend of this Setpoint server',
          response: { 200: systemInfoSchema },
        },
      },
      async () => {
        const row = await store.db
          .selectFrom('projects')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .executeTakeFirstOrThrow();
        return { version: setpointVersion, database: store.dialect, projects: Number(row.count) };
      },
    );
  };
}
