import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { ConflictError, ValidationError } from '@setpoint/foundation/errors';
import { z } from 'zod';
import { configuredMasterKeys, masterKeyLocation } from '../security/key-material.js';
import { createRepositories } from '../service/repositories.js';
import { assertSecretsReadable, storedSecrets } from '../service/secrets/stored-secrets.js';
import {
  backupSqliteDatabase,
  openSqliteCopy,
  sqliteDatabaseFile,
  sqliteDatabaseInUse,
} from '../store/sqlite-backup.js';
import { type BackupConfig, type BackupManifest, backupManifestFile } from './backup.js';

export interface RestoreOptions {
  /** Replace the database the data directory already holds (kept beside it as a copy). */
  force: boolean;
}

export interface RestoreSummary {
  manifest: BackupManifest;
  dataDir: string;
  files: string[];
  /** The copy of the database the restore replaced, when there was one. */
  replaced: string | undefined;
  /** What the backup holds that this deployment keeps elsewhere, said in words. */
  skipped: string[];
}

const manifestSchema = z.object({
  setpoint: z.string(),
  created_at: z.string(),
  files: z.array(z.string()),
  secret_keys: z.array(z.string()),
});

function readManifest(source: string): BackupManifest {
  let text: unknown;
  try {
    if (existsSync(path.join(source, 'setpoint.db')))
      text = JSON.parse(readFileSync(path.join(source, backupManifestFile), 'utf8'));
  } catch {
    text = undefined;
  }
  const parsed = manifestSchema.safeParse(text);
  if (!parsed.success)
    throw new ValidationError(
      'RESTORE_NOT_A_BACKUP',
      `${source} is not a Setpoint backup (no readable ${backupManifestFile} beside setpoint.db): give the directory setpoint backup --out wrote`,
    );
  return parsed.data;
}

/** The PostgreSQL answer to `setpoint restore`. */
function postgresRestoreGuidance(): string {
  return (
    'the database is PostgreSQL: restore a pg_dump into an empty database with pg_restore --no-owner ' +
    '--dbname "$SETPOINT_DATABASE_URL" setpoint.dump, then start Setpoint with the SETPOINT_MASTER_KEY the dump ' +
    'was taken with (it refuses to start with another); docs/reliability.md, "Backup and restore"'
  );
}

/**
 * `setpoint restore`: puts a backup written by `setpoint backup` in place as the data directory's database,
 * after checking that the master key this deployment is configured with decrypts the backup's secrets (a
 * backup never holds the key). It refuses a data directory that already holds a database unless told to
 * replace it, and a database a running Setpoint has open in any case; the replaced database is kept
 * beside the restored one. Nothing in the data directory changes until every check has passed.
 */
export async function restoreDataDirectory(
  config: BackupConfig,
  source: string,
  options: RestoreOptions,
): Promise<RestoreSummary> {
  if (config.databaseUrl) throw new ValidationError('RESTORE_USE_PG_RESTORE', postgresRestoreGuidance());
  const manifest = readManifest(source);
  const live = sqliteDatabaseFile(config.dataDir);
  if (existsSync(live) && !options.force)
    throw new ConflictError(
      'RESTORE_WOULD_OVERWRITE',
      `${config.dataDir} already holds a Setpoint database: stop Setpoint and pass --force to replace it (it is kept as a copy beside the restored one)`,
    );
  if (existsSync(live) && sqliteDatabaseInUse(live))
    throw new ConflictError(
      'RESTORE_DATABASE_IN_USE',
      `${live} is open in a running Setpoint (serve or worker): stop it before restoring`,
    );

  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const staged = `${live}.restoring`;
  await rm(staged, { force: true });
  try {
    await backupSqliteDatabase(path.join(source, 'setpoint.db'), staged);
    const copy = openSqliteCopy(staged);
    const secrets = await storedSecrets(createRepositories(copy.db)).finally(() => copy.close());
    const keySources = { dataDir: config.dataDir, masterKey: config.masterKey };
    assertSecretsReadable(secrets, configuredMasterKeys(keySources), masterKeyLocation(keySources));
  } catch (error) {
    await rm(staged, { force: true });
    throw error;
  }

  let replaced: string | undefined;
  if (existsSync(live)) {
    replaced = `${live}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    await backupSqliteDatabase(live, replaced);
    for (const suffix of ['-wal', '-shm', '']) await rm(live + suffix, { force: true });
  }
  await rename(staged, live);
  const files = ['setpoint.db'];
  const skipped: string[] = [];
  for (const directory of ['pricing', 'blobs']) {
    if (!existsSync(path.join(source, directory))) continue;
    if (directory === 'blobs' && config.blobStoreUrl) {
      skipped.push(`the backup's event logs (blobs/): this deployment keeps them in ${config.blobStoreUrl}`);
      continue;
    }
    await cp(path.join(source, directory), path.join(config.dataDir, directory), {
      recursive: true,
      force: true,
    });
    files.push(`${directory}/`);
  }
  return { manifest, dataDir: config.dataDir, files, replaced, skipped };
}
