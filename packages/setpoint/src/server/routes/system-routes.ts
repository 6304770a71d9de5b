import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ProjectService } from '../../service/projects/project-service.js';
import type { DialectName } from '../../store/dialect.js';
import { setpointVersion } from '../../version.js';

export const systemInfoSchema = z.object({
  version: z.string(),
  database: z.enum(['sqlite', 'postgres']),
  projects: z.number().int().nonnegative(),
});

export function systemRoutes(
  database: DialectName,
  projects: Pick<ProjectService, 'count'>,
): FastifyPluginAsyncZod {
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
      async () => ({ version: setpointVersion, database, projects: await projects.count() }),
    );
  };
}
