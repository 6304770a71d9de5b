import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase, type StoreConnection } from 'setpoint/store/open-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { describeFull } from '../support/tiers.js';

function storeContract(open: () => Promise<StoreConnection>) {
  let store: StoreConnection;

  beforeAll(async () => {
    store = await open();
  });

  afterAll(async () => {
    await store?.close();
  });

  it('creates the projects table and round-trips a row with epoch-ms timestamps', async () => {
    const createdAt = Date.UTC(2026, 10, 21, 5, 30);

    await store.db
      .insertInto('projects')
      .values({
        id: 'p-1',
        name: 'nightly-etl',
        description: 'orders',
        created_at: createdAt,
        updated_at: createdAt,
      })
      .execute();
    const row = await store.db
      .selectFrom('projects')
      .selectAll()
      .where('id', '=', 'p-1')
      .executeTakeFirstOrThrow();

    expect(row).toMatchObject({
      id: 'p-1',
      name: 'nightly-etl',
      description: 'orders',
      created_at: createdAt,
      updated_at: createdAt,
    });
  });

  it('assigns increasing audit ids on both dialects', async () => {
    const inserted = await store.db
      .insertInto('audit_log')
      .values([
        { entity: 'project', entity_id: 'p-1', action: 'create', actor: 'test', detail: '{}', created_at: 1 },
        { entity: 'project', entity_id: 'p-1', action: 'update', actor: 'test', detail: '{}', created_at: 2 },
      ])
      .returning('id')
      .execute();

    const ids = inserted.map((row) => Number(row.id));
    expect(ids[1]).toBeGreaterThan(ids[0] ?? Number.POSITIVE_INFINITY);
  });
}

describe('SQLite store', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-store-'));
  storeContract(() => openDatabase({ dataDir }));

  it('re-opening an existing file runs no migration twice', async () => {
    const again = await openDatabase({ dataDir });
    const count = await again.db
      .selectFrom('projects')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    await again.close();

    expect(Number(count?.n)).toBe(1);
  });
});

describeFull('PostgreSQL store', 'a PostgreSQL server (SETPOINT_TEST_PG_URL)', () => {
  let database: TestPostgresDatabase;

  beforeAll(async () => {
    database = await createTestPostgresDatabase();
  });

  afterAll(async () => {
    await database?.drop();
  });

  storeContract(() => openDatabase({ databaseUrl: database.url, dataDir: '/nonexistent' }));
});
