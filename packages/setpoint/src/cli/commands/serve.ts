import type { Command } from '@commander-js/extra-typings';
import { loadConfig } from '../../config/load-config.js';
import { startServer, stopOnSignals } from '../../server/start-server.js';

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('run the Setpoint API and dashboard (with the pipeline worker unless --no-worker)')
    .option('--port <port>', 'port to listen on (default 8080, env SETPOINT_PORT)')
    .option('--host <host>', 'address to bind (default 127.0.0.1, env SETPOINT_HOST)')
    .option('--data-dir <dir>', 'where the embedded database, blobs and keys live (default ./.setpoint)')
    .option(
      '--no-worker',
      'serve the API only; run `setpoint worker` processes for the pipeline (PostgreSQL)',
    )
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  setpoint serve --port 8080',
        '  SETPOINT_DATABASE_URL=postgres://… setpoint serve --no-worker   # API only',
        '  SETPOINT_DATABASE_URL=postgres://… setpoint worker               # on any number of machines',
      ].join('\n'),
    )
    .action(async (options) => {
      const config = loadConfig({ port: options.port, host: options.host, dataDir: options.dataDir });
      const server = await startServer(config, { withWorker: options.worker });
      const mode = options.worker ? 'API + worker' : 'API only';
      process.stdout.write(`Setpoint ${server.store.dialect} server (${mode}) listening on ${server.url}\n`);
      await stopOnSignals(server);
    });
}
