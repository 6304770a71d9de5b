import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server `.ci/run` starts; override with SETPOINT_TEST_PG_URL. */
export const testPostgresUrl =
  process.env.SETPOINT_TEST_PG_URL ?? 'postgres://setpoint:setpoint@127.0.0.1:5432/postgres';

export interface TestPostgresDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh, uniquely named database so test files never see each other's rows. */
export async function createTestPostgresDatabase(): Promise<TestPostgresDatabase> {
  const name = `setpoint_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testPostgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(testPostgresUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: testPostgresUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
