import type { Command } from '@commander-js/extra-typings';
import { backupDataDirectory } from '../../composition/backup.js';
import { loadConfig } from '../../config/load-config.js';
import { setpointVersion } from '../../version.js';

export function registerBackupCommand(program: Command): void {
  program
    .command('backup')
    .description(
      'copy a running SQLite deployment consistently (database with its WAL, catalogs); the keys stay apart',
    )
    .requiredOption('--out <dir>', 'a new or empty directory to write the backup to')
    .option('--data-dir <dir>', 'data directory of the deployment (default ./.setpoint)')
    .option('--with-event-logs', 'also copy the uploaded event logs (blobs/)')
    .option('--json', 'print {directory, files, secret_keys, keep_apart} as JSON')
    .addHelpText(
      'after',
      [
        '',
        "The database is copied through SQLite's online backup while Setpoint runs, write-ahead log included",
        '(copying setpoint.db alone loses what is still in setpoint.db-wal). The backup never holds master.key or',
        'server-secret: its secrets stay encrypted, and a restore needs the master key they were encrypted with.',
        'On PostgreSQL, use pg_dump: the command says how. Restore with setpoint restore; docs/reliability.md,',
        '"Backup and restore".',
        '',
        'Examples:',
        '  setpoint backup --out /backups/setpoint-$(date +%F) --data-dir /var/lib/setpoint',
        '  setpoint backup --out ./backup --with-event-logs --json',
      ].join('\n'),
    )
    .action(async (options) => {
      const config = loadConfig({ dataDir: options.dataDir });
      const summary = await backupDataDirectory(config, options.out, {
        withEventLogs: options.withEventLogs === true,
        version: setpointVersion,
      });
      if (options.json) {
        process.stdout.write(
          `${JSON.stringify({
            directory: summary.directory,
            files: summary.files,
            secret_keys: summary.secretKeys,
            keep_apart: summary.keepApart,
          })}\n`,
        );
        return;
      }
      process.stdout.write(
        `Backed up ${config.dataDir} to ${summary.directory}: ${summary.files.join(', ')}\n`,
      );
      for (const item of summary.keepApart) process.stdout.write(`Not in the backup, keep apart: ${item}\n`);
    });
}
