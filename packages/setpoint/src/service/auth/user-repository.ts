import { ConflictError } from '@setpoint/foundation/errors';
import {
  type Insertable,
  type Kysely,
  PostgresAdapter,
  type Selectable,
  sql,
  type Transaction,
} from 'kysely';
import type { Database, SessionsTable, UsersTable } from '../../store/database-schema.js';
import { type AuditEntry, recordAudit } from '../audit/audit-repository.js';

export type UserRow = Selectable<UsersTable>;
const userColumns = ['id', 'username', 'role', 'created_at', 'disabled_at'] as const;

/** Changes to users that could leave the organization without an admin who can sign in. */
export type UserChange =
  | { kind: 'role'; role: string }
  | { kind: 'disabled'; at: number | null }
  | { kind: 'delete' }
  | { kind: 'password'; passwordHash: string; keepSessionHash: string | null };

async function enabledAdmins(tx: Transaction<Database>): Promise<number> {
  const row = await tx
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('role', '=', 'admin')
    .where('disabled_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Locks the enabled admins' rows (PostgreSQL, in id order so two changes never deadlock) and counts
 * them. At read committed, two transactions that each demote or disable one of the last two admins
 * would otherwise each still see the other admin enabled and both commit, leaving none: with the
 * locks the second waits for the first, then re-reads the rows it locks and sees what the first did.
 * SQLite needs no lock: it runs one write transaction at a time.
 */
async function lockEnabledAdmins(tx: Transaction<Database>): Promise<number> {
  if (!(tx.getExecutor().adapter instanceof PostgresAdapter)) return enabledAdmins(tx);
  const locked = await tx
    .selectFrom('users')
    .select('id')
    .where('role', '=', 'admin')
    .where('disabled_at', 'is', null)
    .orderBy('id')
    .forUpdate()
    .execute();
  return locked.length;
}

/** Data access for dashboard users and their sessions (both stored as hashes only). */
export function createUserRepository(db: Kysely<Database>) {
  return {
    async insert(row: Insertable<UsersTable>, audit?: AuditEntry): Promise<void> {
      await db.transaction().execute(async (tx) => {
        await tx.insertInto('users').values(row).execute();
        if (audit) await recordAudit(tx, audit, row.created_at);
      });
    },

    /**
     * The user of this name, letters' case ignored (`ADMIN` is `admin`); when an older database holds
     * names that differ only in case, the one written exactly so comes first.
     */
    findByName(username: string): Promise<UserRow | undefined> {
      return db
        .selectFrom('users')
        .selectAll()
        .where(sql<string>`lower(username)`, '=', username.toLowerCase())
        .orderBy(sql`case when username = ${username} then 0 else 1 end`)
        .orderBy('created_at')
        .executeTakeFirst();
    },

    findById(id: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },

    list(): Promise<Array<Omit<UserRow, 'password_hash'>>> {
      return db.selectFrom('users').select(userColumns).orderBy('username').execute();
    },

    /**
     * Applies one change with its audit entry in a transaction that rolls back (409 LAST_ADMIN) when
     * no enabled admin would remain. A role change, disabling and deleting end the user's sessions;
     * a password change ends all but `keepSessionHash` (the session that made it).
     */
    async change(id: string, change: UserChange, audit: AuditEntry, now: number): Promise<void> {
      await db.transaction().execute(async (tx) => {
        const adminsBefore = await lockEnabledAdmins(tx);
        const sessions = tx.deleteFrom('sessions').where('user_id', '=', id);
        if (change.kind === 'role') {
          await tx.updateTable('users').set({ role: change.role }).where('id', '=', id).execute();
          await sessions.execute();
        } else if (change.kind === 'disabled') {
          await tx.updateTable('users').set({ disabled_at: change.at }).where('id', '=', id).execute();
          if (change.at !== null) await sessions.execute();
        } else if (change.kind === 'delete') {
          await sessions.execute();
          await tx.deleteFrom('users').where('id', '=', id).execute();
        } else {
          await tx
            .updateTable('users')
            .set({ password_hash: change.passwordHash })
            .where('id', '=', id)
            .execute();
          await (change.keepSessionHash
            ? sessions.where('token_hash', '!=', change.keepSessionHash)
            : sessions
          ).execute();
        }
        if (adminsBefore > 0 && (await enabledAdmins(tx)) === 0)
          throw new ConflictError(
            'LAST_ADMIN',
            'this would leave no admin who can sign in: make another user admin first',
          );
        await recordAudit(tx, audit, now);
      });
    },

    async insertSession(row: Selectable<SessionsTable>): Promise<void> {
      await db.insertInto('sessions').values(row).execute();
    },

    /** The session with that token hash and its user. */
    findSession(tokenHash: string) {
      return db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .select([
          'users.id',
          'users.username',
          'users.role',
          'users.created_at',
          'users.disabled_at',
          'sessions.csrf_token',
          'sessions.expires_at',
        ])
        .where('sessions.token_hash', '=', tokenHash)
        .executeTakeFirst();
    },

    /** How many unexpired sessions a user has. */
    async sessionCount(userId: string, now: number): Promise<number> {
      const row = await db
        .selectFrom('sessions')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('user_id', '=', userId)
        .where('expires_at', '>', now)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    async deleteSession(tokenHash: string): Promise<void> {
      await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
    },
  };
}

export type UserRepository = ReturnType<typeof createUserRepository>;
