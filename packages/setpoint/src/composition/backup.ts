import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ValidationError } from '@setpoint/foundation/errors';
import type { SetpointConfig } from '../config/schema.js';
import { masterKeyLocation } from '../security/key-material.js';
import { createRepositories } from '../service/repositories.js';
import { secretKeyIds, storedSecrets } from '../service/secrets/stored-secrets.js';
import { backupSqliteDatabase, openSqliteCopy, sqliteDatabaseFile } from '../store/sqlite-backup.js';

export type BackupConfig = Pick<
  SetpointConfig,
  'dataDir' | 'databaseUrl' | 'masterKey' | 'serverSecret' | 'blobStoreUrl'
>;

export interface BackupOptions {
  /** Also copy the local blob store (uploaded event logs); runs keep their profiles without it. */
  withEventLogs: boolean;
  /** The Setpoint version writing the backup, recorded in backup.json. */
  version: string;
}

export interface BackupSummary {
  directory: string;
  files: string[];
  /** The master key ids the backed-up secrets are encrypted with: a restore needs these keys. */
  secretKeys: string[];
  /** What a restore needs that the backup leaves out, said in words (the keys first). */
  keepApart: string[];
}

/** What `setpoint backup` writes beside the database, and `setpoint restore` reads. */
export interface BackupManifest {
  setpoint: string;
  created_at: string;
  files: string[];
  secret_keys: string[];
}

export const backupManifestFile = 'backup.json';

/** The PostgreSQL answer to `setpoint backup`: what to run instead, with the URL's password left out. */
export function postgresBackupGuidance(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.password = '';
  return (
    `the database is PostgreSQL (${url.host}${url.pathname}): back it up with pg_dump, a consistent snapshot ` +
    'while Setpoint runs (pg_dump --format=custom --file setpoint.dump "$SETPOINT_DATABASE_URL"), and keep ' +
    'SETPOINT_MASTER_KEY and SETPOINT_SERVER_SECRET apart from the dump (docs/reliability.md, "Backup and restore")'
  );
}

/** The key material a restore needs, which no backup holds. */
function keysToKeepApart(config: BackupConfig, secretKeys: readonly string[]): string[] {
  const keySources = { dataDir: config.dataDir, masterKey: config.masterKey };
  const master =
    secretKeys.length > 0
      ? `master key ${secretKeys.map((id) => `"${id}"`).join(', ')} (${masterKeyLocation(keySources)}): the stored secrets are encrypted with it`
      : `the master key (${masterKeyLocation(keySources)}), for secrets saved later`;
  const serverSecret = `the server secret (${
    config.serverSecret !== undefined ? 'SETPOINT_SERVER_SECRET' : path.join(config.dataDir, 'server-secret')
  }): API keys are checked with it`;
  return [master, serverSecret];
}

async function assertEmptyOrMissing(directory: string): Promise<void> {
  if (existsSync(directory) && (await readdir(directory)).length > 0)
    throw new ValidationError(
      'BACKUP_TARGET_NOT_EMPTY',
      `${directory} is not empty: back up into a new directory`,
    );
}

/**
 * `setpoint backup`: a consistent copy of a SQLite deployment's data directory while it runs — the
 * database through SQLite's online backup (write-ahead log included), the price catalogs and overrides,
 * and on request the uploaded event logs. Never the key files: the database holds its secrets encrypted,
 * and a backup that carried the master key beside them would carry them readable. backup.json records
 * which master keys the secrets need, so a restore can check it has them. A PostgreSQL deployment is
 * backed up with pg_dump (the error says how). The target directory must be new or empty.
 */
export async function backupDataDirectory(
  config: BackupConfig,
  target: string,
  options: BackupOptions,
): Promise<BackupSummary> {
  if (config.databaseUrl)
    throw new ValidationError('BACKUP_USE_PG_DUMP', postgresBackupGuidance(config.databaseUrl));
  const source = sqliteDatabaseFile(config.dataDir);
  if (!existsSync(source))
    throw new ValidationError('BACKUP_NO_DATABASE', `${source} does not exist: nothing to back up`);
  await assertEmptyOrMissing(target);
  await mkdir(target, { recursive: true, mode: 0o700 });
  await chmod(target, 0o700);
  const files: string[] = [];
  const database = path.join(target, 'setpoint.db');
  await backupSqliteDatabase(source, database);
  files.push('setpoint.db');
  const copy = openSqliteCopy(database);
  const secretKeys = await storedSecrets(createRepositories(copy.db))
    .then(secretKeyIds)
    .finally(() => copy.close());
  const pricing = path.join(config.dataDir, 'pricing');
  if (existsSync(pricing)) {
    await cp(pricing, path.join(target, 'pricing'), { recursive: true });
    files.push('pricing/');
  }
  const keepApart = keysToKeepApart(config, secretKeys);
  const blobs = path.join(config.dataDir, 'blobs');
  if (config.blobStoreUrl)
    keepApart.push(`the event logs in ${config.blobStoreUrl} (back the bucket up with its own tools)`);
  else if (options.withEventLogs && existsSync(blobs)) {
    await cp(blobs, path.join(target, 'blobs'), { recursive: true });
    files.push('blobs/');
  } else if (existsSync(blobs))
    keepApart.push(
      'the uploaded event logs (blobs/; --with-event-logs copies them; runs keep their profiles without them)',
    );
  const manifest: BackupManifest = {
    setpoint: options.version,
    created_at: new Date().toISOString(),
    files,
    secret_keys: secretKeys,
  };
  await writeFile(path.join(target, backupManifestFile), `${JSON.stringify(manifest, null, 2)}\n`, {
    mode: 0o600,
  });
  return { directory: target, files, secretKeys, keepApart };
}
