import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseMasterKeys, SecretBox } from './secret-box.js';

const keyA = { id: 'a', key: randomBytes(32) };
const keyB = { id: 'b', key: randomBytes(32) };

describe('SecretBox', () => {
  it('round-trips a secret and never stores the plaintext', () => {
    const box = new SecretBox([keyA]);
    const envelope = box.encrypt('dapi-123-secret', 'workspace:w1:credentials');

    expect(envelope).not.toContain('dapi');
    expect(envelope.startsWith('v1.a.')).toBe(true);
    expect(box.decrypt(envelope, 'workspace:w1:credentials')).toBe('dapi-123-secret');
  });

  it('refuses a ciphertext moved to another record or tampered with', () => {
    const box = new SecretBox([keyA]);
    const envelope = box.encrypt('secret', 'workspace:w1:credentials');
    const parts = envelope.split('.');
    const body = Buffer.from(parts[4] ?? '', 'base64url');
    body[0] = (body[0] ?? 0) ^ 1;
    parts[4] = body.toString('base64url');

    expect(() => box.decrypt(envelope, 'workspace:w2:credentials')).toThrow();
    expect(() => box.decrypt(parts.join('.'), 'workspace:w1:credentials')).toThrow();
  });

  it('decrypts old records after rotation while encrypting under the new key', () => {
    const old = new SecretBox([keyA]).encrypt('secret', 'aad');
    const rotated = new SecretBox([keyB, keyA]);

    expect(rotated.decrypt(old, 'aad')).toBe('secret');
    expect(SecretBox.keyIdOf(rotated.encrypt('secret', 'aad'))).toBe('b');
    expect(() => new SecretBox([keyB]).decrypt(old, 'aad')).toThrow(/master key "a"/);
  });

  it('parses key rings with and without ids', () => {
    const encoded = keyA.key.toString('base64');
    const [bare] = parseMasterKeys(encoded);
    const ring = parseMasterKeys(`new:${keyB.key.toString('base64')},old:${encoded}`);

    expect(bare?.id).toMatch(/^[0-9a-f]{8}$/);
    expect(ring.map((key) => key.id)).toEqual(['new', 'old']);
    expect(() => new SecretBox([{ id: 'short', key: randomBytes(16) }])).toThrow(/32 bytes/);
  });
});
