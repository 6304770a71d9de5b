import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Database } from 'setpoint/store/database-schema';
import type { DialectName } from 'setpoint/store/dialect';
// also installs the int8 parser every Setpoint connection uses (epoch milliseconds as numbers)
import { openDatabase, type StoreConnection } from 'setpoint/store/open-database';
import { afterAll, beforeAll, describe } from 'vitest';
import { createTestPostgresDatabase, type TestPostgresDatabase } from './postgres.js';
import { describeFull } from './tiers.js';

/** Opens an empty database of one dialect; the contract migrates it and destroys it after its tests. */
export type OpenDatabase = () => { db: Kysely<Database>; dialect: DialectName };

/**
 * Runs a store contract on a fresh SQLite file and, in the full tier, on a fresh PostgreSQL database:
 * `<title> on SQLite`, `<title> on PostgreSQL`.
 */
export function describeOnBothDatabases(title: string, contract: (open: OpenDatabase) => void): void {
  describe(`${title} on SQLite`, () => {
    contract(() => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-store-'));
      const file = new SqliteDatabase(path.join(dataDir, 'setpoint.db'));
      return {
        db: new Kysely<Database>({ dialect: new SqliteDialect({ database: file }) }),
        dialect: 'sqlite',
      };
    });
  });

  describeFull(`${title} on PostgreSQL`, 'a PostgreSQL server (SETPOINT_TEST_PG_URL)', () => {
    let database: TestPostgresDatabase;
    beforeAll(async () => {
      database = await createTestPostgresDatabase();
    });
    // registered before the contract's own after-hook, so it runs after the pool has closed
    afterAll(async () => {
      await database?.drop();
    });
    contract(() => {
      const pool = new pg.Pool({ connectionString: database.url, max: 2 });
      // as the product's pool does: the database dropped after the tests ends idle connections, which is no failure
      pool.on('error', () => undefined);
      pool.on('connect', (client) => client.on('error', () => undefined));
      return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), dialect: 'postgres' };
    });
  });
}

/**
 * Runs tests over Setpoint's own store (`openDatabase`: migrated, with its plugins) on a fresh SQLite data
 * directory and, in the full tier, on a fresh PostgreSQL database, dropped after the tests:
 * `<title> on SQLite`, `<title> on PostgreSQL`. The tests open the store and close it themselves.
 */
export function describeOnBothStores(
  title: string,
  tests: (open: () => Promise<StoreConnection>) => void,
): void {
  const dataDir = () => mkdtempSync(path.join(tmpdir(), 'setpoint-store-'));
  describe(`${title} on SQLite`, () => {
    tests(() => openDatabase({ dataDir: dataDir() }));
  });

  describeFull(`${title} on PostgreSQL`, 'a PostgreSQL server (SETPOINT_TEST_PG_URL)', () => {
    const databases: TestPostgresDatabase[] = [];
    // registered before the tests' own after-hooks, so it runs after the store (and its pool) closed
    afterAll(async () => {
      for (const database of databases.splice(0)) await database.drop();
    });
    tests(async () => {
      const database = await createTestPostgresDatabase();
      databases.push(database);
      return openDatabase({ databaseUrl: database.url, dataDir: dataDir() });
    });
  });
}
