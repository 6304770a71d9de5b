import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ConfigError, ValidationError } from '@setpoint/foundation/errors';

export interface MasterKey {
  id: string;
  key: Buffer;
}

/** Envelope format: `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url parts). */
const envelopeVersion = 'v1';

/**
 * AES-256-GCM with a key ring: the first key encrypts, every key decrypts, so a new key can be put
 * first and old records re-encrypted later. The associated data binds a ciphertext to its record.
 */
export class SecretBox {
  readonly #keys: Map<string, Buffer>;
  readonly #active: MasterKey;

  constructor(keys: MasterKey[]) {
    const [active] = keys;
    if (!active) throw new ConfigError('no master key configured for encrypting secrets');
    for (const { id, key } of keys) {
      if (key.length !== 32) throw new ConfigError(`master key ${id} must be 32 bytes, got ${key.length}`);
      if (!/^[A-Za-z0-9_-]+$/.test(id))
        throw new ConfigError(`master key id "${id}" may hold only [A-Za-z0-9_-]`);
    }
    this.#keys = new Map(keys.map(({ id, key }) => [id, key]));
    this.#active = active;
  }

  get activeKeyId(): string {
    return this.#active.id;
  }

  encrypt(plaintext: string, associatedData: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#active.key, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [envelopeVersion, this.#active.id, iv, tag, ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  decrypt(envelope: string, associatedData: string): string {
    const [version, keyId, iv, tag, ciphertext] = envelope.split('.');
    if (version !== envelopeVersion || !keyId || !iv || !tag || ciphertext === undefined) {
      throw new ValidationError('SECRET_ENVELOPE_INVALID', 'stored secret is not a Setpoint v1 envelope');
    }
    const key = this.#keys.get(keyId);
    if (!key)
      throw new ConfigError(`secret was encrypted with master key "${keyId}", which is not configured`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }

  /** The key id inside an envelope, to find records still under an old key. */
  static keyIdOf(envelope: string): string | undefined {
    return envelope.split('.')[1];
  }
}

/** Parses `base64` or `id:base64[,id:base64…]`; a bare key gets an id derived from its hash. */
export function parseMasterKeys(text: string): MasterKey[] {
  return text
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => {
      const separator = entry.indexOf(':');
      const encoded = separator >= 0 ? entry.slice(separator + 1) : entry;
      const key = Buffer.from(encoded, 'base64');
      const id =
        separator >= 0
          ? entry.slice(0, separator)
          : createHash('sha256').update(key).digest('hex').slice(0, 8);
      return { id, key };
    });
}
