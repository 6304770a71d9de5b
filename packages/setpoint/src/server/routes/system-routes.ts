import { systemInfoSchema } from '@setpoint/api-contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ProjectService } from '../../service/projects/project-service.js';
import type { DialectName } from '../../store/dialect.js';
import { setpointVersion } from '../../version.js';

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
