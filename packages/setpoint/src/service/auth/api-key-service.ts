import { NotFoundError, UnauthorizedError } from '@setpoint/foundation/errors';
import { type CredentialSigner, newApiKeyId, newApiKeySecret } from '../../security/credentials.js';
import type { ApiKeyRepository } from './api-key-repository.js';

export interface ApiKeySummary {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** Who an API key's token speaks for. */
export interface KeyPrincipal {
  keyId: string;
  /** `api-key:<id>`, as written to audit logs. */
  actor: string;
}

/** last_used_at is written at most this often per key, to keep reads cheap. */
const lastUsedResolutionMs = 60_000;

export function createApiKeyService({
  keys,
  signer,
  accessTokenTtlSeconds,
}: {
  keys: ApiKeyRepository;
  signer: CredentialSigner;
  accessTokenTtlSeconds: number;
}) {
  const lastUsedWritten = new Map<string, number>();

  async function touch(keyId: string, now: number) {
    const previous = lastUsedWritten.get(keyId) ?? 0;
    if (now - previous < lastUsedResolutionMs) return;
    lastUsedWritten.set(keyId, now);
    await keys.touch(keyId, now);
  }

  return {
    /** The secret is returned here once and never stored or shown again. */
    async create(name: string, actor: string): Promise<{ id: string; secret: string; name: string }> {
      const id = newApiKeyId();
      const secret = newApiKeySecret();
      const now = Date.now();
      await keys.insert(
        {
          id,
          name,
          secret_hash: signer.hashApiKeySecret(secret),
          created_at: now,
          last_used_at: null,
          revoked_at: null,
        },
        { entity: 'api_key', entityId: id, action: 'create', actor, detail: { name } },
      );
      return { id, secret, name };
    },

    async list(): Promise<ApiKeySummary[]> {
      const rows = await keys.list();
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
      const revoked = await keys.revoke(id, now, {
        entity: 'api_key',
        entityId: id,
        action: 'revoke',
        actor,
        detail: {},
      });
      if (!revoked) throw new NotFoundError('API_KEY_NOT_FOUND', `API key ${id} does not exist`);
    },

    /** Key id + secret → a short-lived bearer token. Every failure looks the same to the caller. */
    async exchange(keyId: string, secret: string): Promise<{ accessToken: string; expiresAt: number }> {
      const row = await keys.find(keyId);
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
    async authenticate(token: string): Promise<KeyPrincipal> {
      const claims = signer.readAccessToken(token);
      const now = Date.now();
      if (!claims || claims.expiresAt <= now) throw new UnauthorizedError('invalid or expired access token');
      const row = await keys.find(claims.keyId);
      if (!row || row.revoked_at !== null)
        throw new UnauthorizedError('the API key behind this token was revoked');
      await touch(row.id, now);
      return { keyId: row.id, actor: `api-key:${row.id}` };
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
