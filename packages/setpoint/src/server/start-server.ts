import type { FastifyInstance } from 'fastify';
import { composeServices, type Services } from '../composition/compose-services.js';
import type { SetpointConfig } from '../config/schema.js';
import { createLogger } from '../logging/logger.js';
import type { StoreConnection } from '../store/open-database.js';
import { buildApp } from './build-app.js';

export interface RunningServer {
  app: FastifyInstance;
  store: StoreConnection;
  services: Services;
  url: string;
  stop(): Promise<void>;
}

export interface StartServerOptions {
  /** Run the pipeline workers in this process too (the embedded default). */
  withWorker: boolean;
}

export async function startServer(
  config: SetpointConfig,
  options: StartServerOptions = { withWorker: true },
): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  const services = await composeServices({ config, logger });
  const app = await buildApp({ services, logger });
  await app.listen({ host: config.host, port: config.port });
  if (options.withWorker) await services.startWorkers();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  services.setPublicUrl(`http://${config.host}:${port}`);
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= app.close().then(() => services.close());
    return stopping;
  };
  return { app, store: services.store, services, url: `http://${config.host}:${port}`, stop };
}

/** Resolves after SIGINT/SIGTERM once `stop` has drained work and closed the database. */
export function stopOnSignals(target: { stop(): Promise<void> }): Promise<void> {
  return new Promise((resolve) => {
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      void target.stop().then(resolve);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
