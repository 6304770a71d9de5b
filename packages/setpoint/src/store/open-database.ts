import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '@setpoint/foundation/errors';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './database-schema.js';
import type { DialectName } from './dialect.js';
import { type ExtraMigrations, migrationProvider } from './migrations/index.js';

export interface StoreConnection {
  db: Kysely<Database>;
  dialect: DialectName;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  /** The registered platforms' migrations, run in the same sequence as the core's. */
  migrations?: ExtraMigrations[];
}

// int8 (counts, epoch ms) arrives as a string from pg; Setpoint's values all fit in a double.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

export async function openDatabase(options: OpenDatabaseOptions): Promise<StoreConnection> {
  const connection = options.databaseUrl ? openPostgres(options.databaseUrl) : openSqlite(options.dataDir);
  await migrateToLatest(connection, options.migrations ?? []);
  return connection;
}

function openPostgres(databaseUrl: string): StoreConnection {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  // A connection the server closed (restart, failover, pg_terminate_backend) is dropped by the pool and the
  // next query opens a new one. Unhandled, the 'error' event of the pool (idle connection) or of a client
  // (checked out between two statements of a transaction) would crash the process; the statement in
  // flight, if any, fails on its own and the job retries.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

function openSqlite(dataDir: string): StoreConnection {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const databaseFile = path.join(dataDir, 'setpoint.db');
  const file = new SqliteDatabase(databaseFile);
  file.pragma('journal_mode = WAL');
  // The database holds encrypted secrets and every run: readable by its owner only (WAL files too).
  for (const suffix of ['', '-wal', '-shm']) {
    if (existsSync(databaseFile + suffix)) chmodSync(databaseFile + suffix, 0o600);
  }
  file.pragma('busy_timeout = 5000');
  file.pragma('synchronous = NORMAL');
  file.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: file }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

async function migrateToLatest(connection: StoreConnection, extra: ExtraMigrations[]): Promise<void> {
  const migrator = new Migrator({
    db: connection.db,
    provider: migrationProvider(connection.dialect, extra),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new AppError(
      'internal',
      'MIGRATION_FAILED',
      `database migration ${failed} failed: ${String(error)}`,
      {
        cause: error,
      },
    );
  }
}
