import type { Command } from '@commander-js/extra-typings';
import { loadConfig } from '../../config/load-config.js';
import { startServer, stopOnSignals } from '../../server/start-server.js';

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('start Setpoint on the embedded defaults (SQLite under ./.setpoint) and open the dashboard')
    .option('--port <port>', 'dashboard port', '8080')
    .action(async (options) => {
      const config = loadConfig({ port: options.port });
      const server = await startServer(config);
      process.stdout.write(
        `Setpoint demo running: dashboard on ${server.url}  (data in ${config.dataDir}; Ctrl+C to stop)\n`,
      );
      await stopOnSignals(server);
    });
}
