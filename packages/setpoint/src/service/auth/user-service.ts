import { createHash, randomBytes } from 'node:crypto';
import { ConflictError, UnauthorizedError, ValidationError } from '@setpoint/foundation/errors';
import { hashPassword, verifyPassword } from './password-hash.js';
import type { UserRepository } from './user-repository.js';

export const userRoles = ['admin', 'editor', 'viewer'] as const;
export type UserRole = (typeof userRoles)[number];

export interface User {
  id: string;
  username: string;
  role: UserRole;
  createdAt: number;
}

export interface Session {
  user: User;
  csrfToken: string;
  expiresAt: number;
}

const sessionTtlMs = 12 * 3_600_000;
const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

function toUser(row: { id: string; username: string; role: string; created_at: number }): User {
  return { id: row.id, username: row.username, role: row.role as UserRole, createdAt: row.created_at };
}

let dummy: Promise<string> | undefined;
const dummyHash = () => {
  dummy ??= hashPassword(randomBytes(16).toString('base64url'));
  return dummy;
};

/** Local dashboard users and their sessions. Passwords are scrypt hashes; sessions are stored hashed. */
export function createUserService({ users, now = Date.now }: { users: UserRepository; now?: () => number }) {
  return {
    async create(username: string, password: string, role: UserRole): Promise<User> {
      if (!/^[a-z0-9._-]{2,64}$/i.test(username)) {
        throw new ValidationError(
          'INVALID_USERNAME',
          'username must be 2–64 letters, digits, dots, dashes or underscores',
        );
      }
      if (password.length < 12)
        throw new ValidationError('WEAK_PASSWORD', 'password must be at least 12 characters');
      if (!userRoles.includes(role))
        throw new ValidationError('INVALID_ROLE', `role must be one of ${userRoles.join(', ')}`);
      const existing = await users.findByName(username);
      if (existing) throw new ConflictError('USER_EXISTS', `user ${username} already exists`);
      const row = {
        id: `usr_${randomBytes(8).toString('hex')}`,
        username,
        password_hash: await hashPassword(password),
        role,
        created_at: now(),
      };
      await users.insert(row);
      return toUser(row);
    },

    async list(): Promise<User[]> {
      return (await users.list()).map(toUser);
    },

    /** A new session token for valid credentials; the same answer for a wrong user and a wrong password. */
    async signIn(username: string, password: string): Promise<{ token: string; session: Session }> {
      const row = await users.findByName(username);
      // One scrypt either way: an unknown name is checked against a stored dummy hash, so the time
      // of the answer does not tell whether the user exists.
      const valid = await verifyPassword(password, row ? row.password_hash : await dummyHash());
      if (!row || !valid) throw new UnauthorizedError('wrong username or password');
      return this.openSession(toUser(row));
    },

    async openSession(user: User): Promise<{ token: string; session: Session }> {
      const token = randomBytes(32).toString('base64url');
      const session: Session = {
        user,
        csrfToken: randomBytes(24).toString('base64url'),
        expiresAt: now() + sessionTtlMs,
      };
      await users.insertSession({
        token_hash: tokenHash(token),
        user_id: user.id,
        csrf_token: session.csrfToken,
        expires_at: session.expiresAt,
        created_at: now(),
      });
      return { token, session };
    },

    async session(token: string): Promise<Session | undefined> {
      const row = await users.findSession(tokenHash(token));
      if (!row || row.expires_at <= now()) return undefined;
      return { user: toUser(row), csrfToken: row.csrf_token, expiresAt: row.expires_at };
    },

    async signOut(token: string): Promise<void> {
      await users.deleteSession(tokenHash(token));
    },

    async userByName(username: string): Promise<User | undefined> {
      const row = await users.findByName(username);
      return row ? toUser(row) : undefined;
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
