import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { setpointVersion } from '../../version.js';

/** The OpenAPI 3 document is generated from the zod route schemas; register before routes. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Setpoint API', version: setpointVersion },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
      },
    },
    transform: jsonSchemaTransform,
  });
  app.get('/api/v1/openapi.json', { config: { public: true }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
}
