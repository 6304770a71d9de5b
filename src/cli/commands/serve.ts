import type { Command } from '@commander-js/extra-typings';
import { loadConfig } from '../../config/load-config.js';
import { startServer, stopOnSignals } from '../../server/start-server.js';

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('run the Setpoint API and dashboard')
    .option('--port <port>', 'port to listen on (default 8080, env SETPOINT_PORT)')
    .option('--host <host>', 'address to bind (default 127.0.0.1, env SETPOINT_HOST)')
    .option('--data-dir <dir>', 'where the embedded database lives (default ./.setpoint)')
    .addHelpText(
      'after',
      '\nExamples:\n  setpoint serve --port 8080\n  SETPOINT_DATABASE_URL=postgres://… setpoint serve',
    )
    .action(async (options) => {
      const config = loadConfig({ port: options.port, host: options.host, dataDir: options.dataDir });
      const server = await startServer(config);
      process.stdout.write(`Setpoint ${server.store.dialect} server listening on ${server.url}\n`);
      await stopOnSignals(server);
    });
}
