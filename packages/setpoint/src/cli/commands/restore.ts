import type { Command } from '@commander-js/extra-typings';
import { restoreDataDirectory } from '../../composition/restore.js';
import { loadConfig } from '../../config/load-config.js';

export function registerRestoreCommand(program: Command): void {
  program
    .command('restore')
    .description(
      'put a backup in place as the database, once the configured master key is shown to read its secrets',
    )
    .requiredOption('--from <dir>', 'the directory setpoint backup --out wrote')
    .option('--data-dir <dir>', 'data directory to restore into (default ./.setpoint)')
    .option('--force', 'replace the database the data directory holds (it is kept as a copy beside it)')
    .addHelpText(
      'after',
      [
        '',
        'Stop Setpoint first. Put the master key the backup was taken with in place before restoring: the file',
        'master.key in the data directory, or SETPOINT_MASTER_KEY (and the server secret likewise, or every API',
        'key must be issued again). The restore refuses a key that does not decrypt the backup, and changes',
        'nothing then. On PostgreSQL, restore a pg_dump with pg_restore: the command says how.',
        '',
        'Examples:',
        '  setpoint restore --from /backups/setpoint-2026-12-06 --data-dir /var/lib/setpoint',
        '  SETPOINT_MASTER_KEY="$(cat /secrets/master.key)" setpoint restore --from ./backup --force',
      ].join('\n'),
    )
    .action(async (options) => {
      const config = loadConfig({ dataDir: options.dataDir });
      const summary = await restoreDataDirectory(config, options.from, { force: options.force === true });
      process.stdout.write(
        `Restored ${summary.files.join(', ')} into ${summary.dataDir} from the backup of ${summary.manifest.created_at}` +
          ` (Setpoint ${summary.manifest.setpoint})\n`,
      );
      if (summary.replaced) process.stdout.write(`The database it replaced is kept as ${summary.replaced}\n`);
      for (const item of summary.skipped) process.stdout.write(`Not restored: ${item}\n`);
    });
}
