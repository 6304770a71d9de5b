import { NotFoundError, UnauthorizedError } from '@setpoint/foundation/errors';
import type { Kysely } from 'kysely';
import { type CredentialSigner, newApiKeyId, newApiKeySecret } from '../security/credentials.js';
import type { Database } from '../store/database-schema.js';
import { recordAudit } from './audit-log.js';

export interface ApiKeySummary {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export interface Principal {
  keyId: string;
  /** `api-key:<id>`, as written to audit logs. */
  actor: string;
}

/** last_used_at is written at most this often per key, to keep reads cheap. */
const lastUsedResolutionMs = 60_000;

export function createApiKeyService({
  db,
  signer,
  accessTokenTtlSeconds,
}: {
  db: Kysely<Database>;
  signer: CredentialSigner;
  accessTokenTtlSeconds: number;
}) {
  const lastUsedWritten = new Map<string, number>();

  async function touch(keyId: string, now: number) {
    const previous = lastUsedWritten.get(keyId) ?? 0;
    if (now - previous < lastUsedResolutionMs) return;
    lastUsedWritten.set(keyId, now);
    await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', keyId).execute();
  }

  return {
    /** The secret is returned here once and never stored or shown again. */
    async create(name: string, actor: string): Promise<{ id: string; secret: string; name: string }> {
      const id = newApiKeyId();
      const secret = newApiKeySecret();
      const now = Date.now();
      await db
        .insertInto('api_keys')
        .values({
          id,
          name,
          secret_hash: signer.hashApiKeySecret(secret),
          created_at: now,
          last_used_at: null,
          revoked_at: null,
        })
        .execute();
      await recordAudit(
        db,
        { entity: 'api_key', entityId: id, action: 'create', actor, detail: { name } },
        now,
      );
      return { id, secret, name };
    },

    async list(): Promise<ApiKeySummary[]> {
      const rows = await db.selectFrom('api_keys').selectAll().orderBy('created_at', 'asc').execute();
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        createdAt: row.created_at,
        lastUsedAt: row.last_used_at,
        revokedAt: row.revoked_at,
      }));
    },

    async revoke(id: string, actor: string): Promise<void> {
      const now = Date.now();
      const result = await db
        .updateTable('api_keys')
        .set({ revoked_at: now })
        .where('id', '=', id)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0)
        throw new NotFoundError('API_KEY_NOT_FOUND', `API key ${id} does not exist`);
      await recordAudit(db, { entity: 'api_key', entityId: id, action: 'revoke', actor, detail: {} }, now);
    },

    /** Key id + secret → a short-lived bearer token. Every failure looks the same to the caller. */
    async exchange(keyId: string, secret: string): Promise<{ accessToken: string; expiresAt: number }> {
      const row = await db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
      const valid =
        row !== undefined && row.revoked_at === null && signer.apiKeySecretMatches(secret, row.secret_hash);
      if (!valid) {
        // Hash anyway so a missing key id takes as long as a wrong secret.
        if (!row) signer.hashApiKeySecret(secret);
        throw new UnauthorizedError('invalid API key id or secret');
      }
      const now = Date.now();
      await touch(keyId, now);
      const expiresAt = now + accessTokenTtlSeconds * 1000;
      return { accessToken: signer.issueAccessToken({ keyId, expiresAt }), expiresAt };
    },

    /** Bearer token → principal; rejects bad signatures, expired tokens and revoked keys. */
    async authenticate(token: string): Promise<Principal> {
      const claims = signer.readAccessToken(token);
      const now = Date.now();
      if (!claims || claims.expiresAt <= now) throw new UnauthorizedError('invalid or expired access token');
      const row = await db
        .selectFrom('api_keys')
        .select(['id', 'revoked_at'])
        .where('id', '=', claims.keyId)
        .executeTakeFirst();
      if (!row || row.revoked_at !== null)
        throw new UnauthorizedError('the API key behind this token was revoked');
      await touch(row.id, now);
      return { keyId: row.id, actor: `api-key:${row.id}` };
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
