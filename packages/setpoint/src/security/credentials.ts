import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** API key ids and secrets are recognisable by prefix (secret scanners, log review). */
export const apiKeyIdPrefix = 'spk_';
export const apiKeySecretPrefix = 'sps_';
export const accessTokenPrefix = 'spt_';

export function newApiKeyId(): string {
  return `${apiKeyIdPrefix}${randomBytes(9).toString('base64url')}`;
}

export function newApiKeySecret(): string {
  return `${apiKeySecretPrefix}${randomBytes(32).toString('base64url')}`;
}

export interface AccessTokenClaims {
  keyId: string;
  expiresAt: number;
}

/** HMAC-SHA256 keyed with the server secret: a stolen database alone cannot verify guesses. */
export class CredentialSigner {
  readonly #secret: Buffer;

  constructor(serverSecret: Buffer) {
    this.#secret = serverSecret;
  }

  hashApiKeySecret(secret: string): string {
    return this.#mac(`api-key:${secret}`).toString('hex');
  }

  apiKeySecretMatches(secret: string, storedHash: string): boolean {
    const expected = Buffer.from(storedHash, 'hex');
    const actual = this.#mac(`api-key:${secret}`);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  /** `spt_<keyId>.<expiresAt>.<mac>`: stateless, and checked against the key's revocation on use. */
  issueAccessToken(claims: AccessTokenClaims): string {
    const body = `${claims.keyId}.${claims.expiresAt}`;
    return `${accessTokenPrefix}${body}.${this.#mac(`access-token:${body}`).toString('base64url')}`;
  }

  /** The claims of a well-formed, correctly signed token (expiry is checked by the caller). */
  readAccessToken(token: string): AccessTokenClaims | undefined {
    if (!token.startsWith(accessTokenPrefix)) return undefined;
    const parts = token.slice(accessTokenPrefix.length).split('.');
    if (parts.length !== 3) return undefined;
    const [keyId, expires, mac] = parts as [string, string, string];
    const expected = this.#mac(`access-token:${keyId}.${expires}`);
    const actual = Buffer.from(mac, 'base64url');
    if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return undefined;
    const expiresAt = Number(expires);
    return Number.isSafeInteger(expiresAt) ? { keyId, expiresAt } : undefined;
  }

  #mac(message: string): Buffer {
    return createHmac('sha256', this.#secret).update(message, 'utf8').digest();
  }
}
