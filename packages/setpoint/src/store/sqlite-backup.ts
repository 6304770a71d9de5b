import { chmodSync, existsSync } from 'node:fs';
import path from 'node:path';
import { ValidationError } from '@setpoint/foundation/errors';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from './database-schema.js';
import type { StoreConnection } from './open-database.js';

/** The SQLite database file of a data directory. */
export function sqliteDatabaseFile(dataDir: string): string {
  return path.join(dataDir, 'setpoint.db');
}

/**
 * A consistent copy of a live SQLite database, through SQLite's online backup API: it reads the database
 * as a connection sees it, so what is still only in the write-ahead log (`setpoint.db-wal`) is in the
 * copy, and writers may go on while it runs. Copying `setpoint.db` alone loses that (runs, audit rows,
 * applied configurations). The copy is one self-contained file (rollback journal, no WAL), checked with
 * `PRAGMA integrity_check` and left 0600.
 */
export async function backupSqliteDatabase(source: string, target: string): Promise<{ pages: number }> {
  if (!existsSync(source))
    throw new ValidationError('BACKUP_NO_DATABASE', `${source} does not exist: nothing to back up`);
  const database = new SqliteDatabase(source, { fileMustExist: true });
  let pages = 0;
  try {
    database.pragma('busy_timeout = 5000');
    pages = (await database.backup(target)).totalPages;
  } finally {
    database.close();
  }
  chmodSync(target, 0o600);
  const copy = new SqliteDatabase(target, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
    const check = copy.pragma('integrity_check', { simple: true });
    if (check !== 'ok')
      throw new ValidationError(
        'BACKUP_CORRUPT',
        `the copy ${target} fails its integrity check: ${String(check)}`,
      );
  } finally {
    copy.close();
  }
  return { pages };
}

/**
 * Whether another connection (a running `setpoint serve` or `setpoint worker`) has the database open. A
 * connection in WAL mode holds a shared lock for as long as it is open, so leaving WAL mode, which needs
 * the database to itself, fails (SQLITE_BUSY, or the mode stays `wal`) while one does. Left in rollback-journal mode when free
 * (its write-ahead log checkpointed): the caller is about to replace it.
 */
export function sqliteDatabaseInUse(file: string): boolean {
  const database = new SqliteDatabase(file, { fileMustExist: true });
  try {
    database.pragma('busy_timeout = 0');
    return database.pragma('journal_mode = DELETE', { simple: true }) !== 'delete';
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) return true;
    throw error;
  } finally {
    database.close();
  }
}

/** A read-only connection to a database copy (a backup), without migrating it. */
export function openSqliteCopy(file: string): StoreConnection {
  const database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}
