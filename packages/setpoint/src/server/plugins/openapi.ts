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

/**
 * Builds the OpenAPI document now, once every route is registered (@fastify/swagger keeps it): turning
 * every route's zod schemas into JSON Schema takes about 0.1 s of CPU on an idle core and over a second
 * on a loaded machine, which the first request for the document would otherwise spend on the event loop
 * of a listening server (health checks and lease heartbeats wait behind it).
 */
export async function prepareOpenApiDocument(app: FastifyInstance): Promise<void> {
  await app.ready();
  app.swagger();
}
