import type { Kysely, Selectable } from 'kysely';
import type { Database, SessionsTable, UsersTable } from '../../store/database-schema.js';

export type UserRow = Selectable<UsersTable>;
const userColumns = ['id', 'username', 'role', 'created_at'] as const;

/** Data access for dashboard users and their sessions (both stored as hashes only). */
export function createUserRepository(db: Kysely<Database>) {
  return {
    async insert(row: UserRow): Promise<void> {
      await db.insertInto('users').values(row).execute();
    },

    findByName(username: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
    },

    list(): Promise<Array<Omit<UserRow, 'password_hash'>>> {
      return db.selectFrom('users').select(userColumns).orderBy('username').execute();
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
          'sessions.csrf_token',
          'sessions.expires_at',
        ])
        .where('sessions.token_hash', '=', tokenHash)
        .executeTakeFirst();
    },

    async deleteSession(tokenHash: string): Promise<void> {
      await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
    },
  };
}

export type UserRepository = ReturnType<typeof createUserRepository>;
