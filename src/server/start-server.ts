import type { FastifyInstance } from 'fastify';
import type { SetpointConfig } from '../config/schema.js';
import { createLogger } from '../logging/logger.js';
import { openDatabase, type StoreConnection } from '../store/open-database.js';
import { buildApp } from './build-app.js';

export interface RunningServer {
  app: FastifyInstance;
  store: StoreConnection;
  url: string;
  stop(): Promise<void>;
}

export async function startServer(config: SetpointConfig): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  const store = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const app = await buildApp({ store, logger });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= app.close().then(() => store.close());
    return stopping;
  };
  return { app, store, url: `http://${config.host}:${port}`, stop };
}

/** Resolves after SIGINT/SIGTERM once the server has drained and closed its database. */
export function stopOnSignals(server: RunningServer): Promise<void> {
  return new Promise((resolve) => {
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      void server.stop().then(resolve);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
