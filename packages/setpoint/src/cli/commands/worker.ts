import type { Command } from '@commander-js/extra-typings';
import { composeServices } from '../../composition/compose-services.js';
import { loadConfig } from '../../config/load-config.js';
import { createLogger } from '../../logging/logger.js';
import { stopOnSignals } from '../../server/start-server.js';

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('run pipeline workers (ingest, parse, cost, recommendation) without the API')
    .option('--data-dir <dir>', 'data directory (SQLite database, blobs, keys; default ./.setpoint)')
    .option('--concurrency <n>', 'jobs run at once (default 2, env SETPOINT_WORKER_CONCURRENCY)')
    .addHelpText(
      'after',
      [
        '',
        'Workers share the queue through the database: pg-boss on PostgreSQL, the queue_jobs table on SQLite.',
        'Every worker needs the same SETPOINT_MASTER_KEY and SETPOINT_SERVER_SECRET as the API.',
        'A worker whose PostgreSQL queue stays unreachable for SETPOINT_WORKER_QUEUE_LOSS_SECONDS (default 60)',
        'exits with status 75 after one log line saying why, so its supervisor restarts it.',
        '',
        'Examples:',
        '  SETPOINT_DATABASE_URL=postgres://setpoint@db/setpoint setpoint worker --concurrency 4',
        '  setpoint worker --data-dir /var/lib/setpoint',
      ].join('\n'),
    )
    .action(async (options) => {
      const config = loadConfig({ dataDir: options.dataDir, workerConcurrency: options.concurrency });
      const logger = createLogger(config.logLevel);
      const services = await composeServices({ config, logger });
      await services.startWorkers((reason) => {
        // One line that says why, then a non-zero exit: the supervisor (systemd, Kubernetes) restarts the
        // worker; the jobs it held are retried by any worker once their leases expire.
        logger.fatal({ reason }, `worker lost its queue: ${reason}; exiting so a supervisor restarts it`);
        process.exit(75);
      });
      process.stdout.write(
        `Setpoint worker ready on ${services.store.dialect} (${services.queue.name} queue, concurrency ${config.workerConcurrency})\n`,
      );
      await stopOnSignals({ stop: () => services.close() });
    });
}
