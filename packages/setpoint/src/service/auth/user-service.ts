import { createHash, randomBytes } from 'node:crypto';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  UnauthorizedError,
  ValidationError,
} from '@setpoint/foundation/errors';
import type { AuditEntry } from '../audit/audit-repository.js';
import { hashPassword, verifyPassword } from './password-hash.js';
import type { UserChange, UserRepository, UserRow } from './user-repository.js';

export const userRoles = ['admin', 'editor', 'viewer'] as const;
export type UserRole = (typeof userRoles)[number];

export interface User {
  id: string;
  username: string;
  role: UserRole;
  createdAt: number;
  /** Set while an admin has disabled the user. */
  disabledAt: number | null;
}

export interface Session {
  user: User;
  csrfToken: string;
  expiresAt: number;
}

const sessionTtlMs = 12 * 3_600_000;
const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

function toUser(row: Pick<UserRow, 'id' | 'username' | 'role' | 'created_at' | 'disabled_at'>): User {
  return {
    id: row.id,
    username: row.username,
    role: row.role as UserRole,
    createdAt: Number(row.created_at),
    disabledAt: row.disabled_at === null ? null : Number(row.disabled_at),
  };
}

export const minPasswordLength = 12;

function checkPassword(password: string): void {
  if (password.length < minPasswordLength)
    throw new ValidationError('WEAK_PASSWORD', `password must be at least ${minPasswordLength} characters`);
}

function checkRole(role: string): asserts role is UserRole {
  if (!userRoles.includes(role as UserRole))
    throw new ValidationError('INVALID_ROLE', `role must be one of ${userRoles.join(', ')}`);
}

/** A password an admin hands over once (create or reset without one given). */
export const generatedPassword = () => randomBytes(15).toString('base64url');

let dummy: Promise<string> | undefined;
const dummyHash = () => {
  dummy ??= hashPassword(randomBytes(16).toString('base64url'));
  return dummy;
};

/** Local dashboard users and their sessions. Passwords are scrypt hashes; sessions are stored hashed. */
export function createUserService({ users, now = Date.now }: { users: UserRepository; now?: () => number }) {
  async function existing(id: string): Promise<UserRow> {
    const row = await users.findById(id);
    if (!row) throw new NotFoundError('USER_NOT_FOUND', `user ${id} does not exist`);
    return row;
  }
  const audit = (
    row: UserRow,
    action: string,
    actor: string,
    detail: Record<string, unknown> = {},
  ): AuditEntry => ({
    entity: 'user',
    entityId: row.id,
    action,
    actor,
    detail: { username: row.username, ...detail },
  });
  async function change(row: UserRow, what: UserChange, entry: AuditEntry): Promise<void> {
    await users.change(row.id, what, entry, now());
  }

  return {
    /** `actor` is who created the user (the audit trail's "who"); `local-admin` from the CLI. */
    async create(username: string, password: string, role: UserRole, actor = 'local-admin'): Promise<User> {
      if (!/^[a-z0-9._-]{2,64}$/i.test(username)) {
        throw new ValidationError(
          'INVALID_USERNAME',
          'username must be 2–64 letters, digits, dots, dashes or underscores',
        );
      }
      checkPassword(password);
      checkRole(role);
      const taken = await users.findByName(username);
      if (taken)
        throw new ConflictError(
          'USER_EXISTS',
          taken.username === username
            ? `user ${username} already exists`
            : `user ${username} already exists as ${taken.username} (user names are unique whatever their case)`,
        );
      const row: UserRow = {
        id: `usr_${randomBytes(8).toString('hex')}`,
        username,
        password_hash: await hashPassword(password),
        role,
        created_at: now(),
        disabled_at: null,
      };
      await users.insert(row, audit(row, 'create', actor, { role }));
      return toUser(row);
    },

    async get(id: string): Promise<User> {
      return toUser(await existing(id));
    },

    /** A new role; the user's sessions end, so the next request signs in with the new role. */
    async changeRole(id: string, role: string, actor: string): Promise<User> {
      checkRole(role);
      const row = await existing(id);
      if (row.role === role) return toUser(row);
      await change(
        row,
        { kind: 'role', role },
        audit(row, 'role_changed', actor, { from: row.role, to: role }),
      );
      return toUser({ ...row, role });
    },

    /** Disabled users cannot sign in and their sessions end; enabling lets them sign in again. */
    async setDisabled(id: string, disabled: boolean, actor: string): Promise<User> {
      const row = await existing(id);
      if ((row.disabled_at !== null) === disabled) return toUser(row);
      const at = disabled ? now() : null;
      await change(row, { kind: 'disabled', at }, audit(row, disabled ? 'disabled' : 'enabled', actor));
      return toUser({ ...row, disabled_at: at });
    },

    async remove(id: string, actor: string): Promise<void> {
      const row = await existing(id);
      await change(row, { kind: 'delete' }, audit(row, 'delete', actor, { role: row.role }));
    },

    /** An admin sets a new password (generated when none is given): every session of the user ends. */
    async resetPassword(id: string, password: string, actor: string): Promise<void> {
      checkPassword(password);
      const row = await existing(id);
      await change(
        row,
        { kind: 'password', passwordHash: await hashPassword(password), keepSessionHash: null },
        audit(row, 'password_reset', actor),
      );
    },

    /**
     * The signed-in user changes their own password, proving the current one; their other sessions
     * end, the one that made the change (`sessionToken`) stays signed in.
     */
    async changeOwnPassword(
      id: string,
      currentPassword: string,
      newPassword: string,
      sessionToken: string | null,
    ): Promise<void> {
      const row = await existing(id);
      if (!(await verifyPassword(currentPassword, row.password_hash)))
        throw new ForbiddenError('the current password is not right');
      checkPassword(newPassword);
      if (newPassword === currentPassword)
        throw new ValidationError('SAME_PASSWORD', 'the new password must differ from the current one');
      await change(
        row,
        {
          kind: 'password',
          passwordHash: await hashPassword(newPassword),
          keepSessionHash: sessionToken ? tokenHash(sessionToken) : null,
        },
        audit(row, 'password_changed', `user:${row.username}`),
      );
    },

    /** Unexpired sessions of a user (what a password change or a disable ends). */
    sessionCount: (id: string) => users.sessionCount(id, now()),

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
      // Said only to someone who knows the password: it tells them whom to ask.
      if (row.disabled_at !== null)
        throw new ForbiddenError('this account is disabled; ask an admin to enable it');
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
      if (!row || row.expires_at <= now() || row.disabled_at !== null) return undefined;
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
