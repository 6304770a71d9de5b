import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from '../logging/logger.js';
import type { StoreConnection } from '../store/open-database.js';
import { registerErrorHandler } from './plugins/error-handler.js';
import { registerOpenApi } from './plugins/openapi.js';
import { registerWebApp } from './plugins/web-app.js';
import { healthRoutes } from './routes/health-routes.js';
import { systemRoutes } from './routes/system-routes.js';

export interface AppDependencies {
  store: StoreConnection;
  logger: Logger;
  /** Override where the built dashboard is read from (tests). */
  webDir?: string;
  bodyLimitBytes?: number;
}

/** Composition root of the HTTP API: plugins, then routes, each route given only what it needs. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: deps.bodyLimitBytes ?? 10 * 1024 * 1024,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  await registerOpenApi(app);
  await app.register(healthRoutes);
  await app.register(systemRoutes(deps.store));
  await registerWebApp(app, deps.webDir);
  return app;
}
