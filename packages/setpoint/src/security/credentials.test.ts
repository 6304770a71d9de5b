import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CredentialSigner, newApiKeySecret } from './credentials.js';

describe('CredentialSigner', () => {
  const signer = new CredentialSigner(randomBytes(32));

  it('hashes API key secrets with the server secret and matches only the right secret', () => {
    const secret = newApiKeySecret();
    const hash = signer.hashApiKeySecret(secret);

    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(secret);
    expect(signer.apiKeySecretMatches(secret, hash)).toBe(true);
    expect(signer.apiKeySecretMatches(`${secret}x`, hash)).toBe(false);
    expect(new CredentialSigner(randomBytes(32)).apiKeySecretMatches(secret, hash)).toBe(false);
  });

  it('reads back the claims of its own tokens and rejects altered or foreign ones', () => {
    const token = signer.issueAccessToken({ keyId: 'spk_1', expiresAt: 1_900_000_000_000 });
    const altered = token.replace('spk_1', 'spk_2');
    const foreign = new CredentialSigner(randomBytes(32)).issueAccessToken({
      keyId: 'spk_1',
      expiresAt: 1_900_000_000_000,
    });

    expect(signer.readAccessToken(token)).toEqual({ keyId: 'spk_1', expiresAt: 1_900_000_000_000 });
    expect(signer.readAccessToken(altered)).toBeUndefined();
    expect(signer.readAccessToken(foreign)).toBeUndefined();
    expect(signer.readAccessToken('garbage')).toBeUndefined();
  });
});
