import { ValidationError } from '@setpoint/foundation/errors';
import type { FastifyInstance } from 'fastify';
import { composeServices, type Services } from '../composition/compose-services.js';
import type { SetpointConfig } from '../config/schema.js';
import { createLogger } from '../logging/logger.js';
import type { StoreConnection } from '../store/open-database.js';
import { buildApp } from './build-app.js';
import { nodeSupportNotice } from './node-support.js';
import { prepareOpenApiDocument } from './plugins/openapi.js';
import { stopWithParentVariable } from './stop-with-parent.js';

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

/**
 * Listens once the app is ready (the OpenAPI document built, see `prepareOpenApiDocument`), or closes
 * what was opened and says which port is taken (the CLI exits 2 on it).
 */
export async function listenOrExplain(
  app: FastifyInstance,
  address: { host: string; port: number },
  closeServices: () => Promise<void>,
): Promise<void> {
  try {
    await prepareOpenApiDocument(app);
    await app.listen({ host: address.host, port: address.port });
  } catch (error) {
    await app.close().then(closeServices);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new ValidationError('PORT_IN_USE', `port ${address.port} is in use; pick another with --port`, {
        cause: error,
      });
    if (code === 'EACCES')
      throw new ValidationError(
        'PORT_FORBIDDEN',
        `not allowed to listen on port ${address.port}; pick another with --port`,
        {
          cause: error,
        },
      );
    throw error;
  }
}

export async function startServer(
  config: SetpointConfig,
  options: StartServerOptions = { withWorker: true },
): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  const notice = nodeSupportNotice(process.version);
  if (notice) logger.warn(notice);
  const services = await composeServices({ config, logger });
  const app = await buildApp({ services, logger });
  await listenOrExplain(app, config, () => services.close());
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

/**
 * Resolves after SIGINT/SIGTERM once `stop` has drained work and closed the database. A process its
 * launcher started with an IPC channel and SETPOINT_STOP_WITH_PARENT=1 (`setpoint demo`, see
 * `runWithBoundedMalloc`) also stops when the channel closes: its launcher is gone.
 */
export function stopOnSignals(target: { stop(): Promise<void> }): Promise<void> {
  return new Promise((resolve) => {
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('disconnect', onSignal);
      void target.stop().then(resolve);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    if (process.channel && process.env[stopWithParentVariable] === '1') {
      process.on('disconnect', onSignal);
      // the channel alone must not keep the process alive once it has stopped
      process.channel.unref();
    }
  });
}
