import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openStore } from 'setpoint/composition/open-store';
import { createUserService, type UserService } from 'setpoint/service/auth/user-service';
import { createRepositories } from 'setpoint/service/repositories';
import type { StoreConnection } from 'setpoint/store/open-database';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '../service/support/service-harness.js';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../support/postgres.js';
import { describeFull } from '../support/tiers.js';

describeFull(
  'the last admin under concurrent PostgreSQL transactions',
  'PostgreSQL (SETPOINT_TEST_PG_URL)',
  () => {
    let database: TestPostgresDatabase;
    let store: StoreConnection;
    let users: UserService;
    let gate: pg.Client;

    beforeAll(async () => {
      database = await createTestPostgresDatabase();
      store = await openStore({
        databaseUrl: database.url,
        dataDir: mkdtempSync(path.join(tmpdir(), 'setpoint-last-admin-')),
      });
      users = createUserService(createRepositories(store.db));
      gate = new pg.Client({ connectionString: database.url });
      await gate.connect();
    }, 60_000);

    afterAll(async () => {
      await gate?.end();
      await store?.close();
      await database?.drop();
    });

    const enabledAdmins = async () =>
      (await users.list()).filter((user) => user.role === 'admin' && user.disabledAt === null);

    /** Backends of the test database waiting for a lock (the transactions under test). */
    const waitingOnLocks = async () => {
      const result = await gate.query<{ count: string }>(
        `SELECT count(*) AS count FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return Number(result.rows[0]?.count ?? 0);
    };

    it('demoting one and disabling the other of the last two admins at once leaves one admin', async () => {
      const ana = await users.create('ana', 'admin password 1', 'admin');
      const bo = await users.create('bo', 'admin password 2', 'admin');
      await users.create('cy', 'viewer password 3', 'viewer');

      // A connection for each transaction, opened before the gate closes.
      await store.db.connection().execute((first) =>
        store.db.connection().execute(async (second) => {
          await first.selectFrom('users').select('id').execute();
          await second.selectFrom('users').select('id').execute();
        }),
      );
      // The barrier: the audit entry is each change's last statement before COMMIT. While this session
      // holds the audit table, neither transaction can commit; both are let go only once both wait on a
      // lock: each has passed its last-admin check and waits to write its audit entry, or (with the
      // admins' rows locked) the second waits for the first. Without the row locks both commit.
      await gate.query('BEGIN');
      await gate.query('LOCK TABLE audit_log IN EXCLUSIVE MODE');
      const demote = users.changeRole(ana.id, 'editor', 'user:ana');
      const disable = users.setDisabled(bo.id, true, 'user:bo');
      await eventually(
        async () => ((await waitingOnLocks()) >= 2 ? true : undefined),
        30_000,
        'both transactions to wait on a lock',
      );
      await gate.query('COMMIT');
      const outcomes = await Promise.allSettled([demote, disable]);

      const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      expect(refused).toHaveLength(1);
      expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'LAST_ADMIN' });
      expect(await enabledAdmins()).toHaveLength(1);
      // The refused change left nothing behind: no audit entry for it.
      const audited = await store.db
        .selectFrom('audit_log')
        .select('action')
        .where('entity', '=', 'user')
        .where('action', 'in', ['role_changed', 'disabled'])
        .execute();
      expect(audited).toHaveLength(1);
    }, 60_000);
  },
);
