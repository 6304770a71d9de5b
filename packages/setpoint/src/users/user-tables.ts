export interface UsersTable {
  id: string;
  username: string;
  /** `scrypt$N$r$p$salt$hash`, base64url parts. */
  password_hash: string;
  role: string;
  created_at: number;
}

export interface SessionsTable {
  /** SHA-256 of the session token; the token itself is only ever in the user's cookie. */
  token_hash: string;
  user_id: string;
  csrf_token: string;
  expires_at: number;
  created_at: number;
}

export interface UserTables {
  users: UsersTable;
  sessions: SessionsTable;
}
