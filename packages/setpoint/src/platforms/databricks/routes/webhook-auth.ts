import { createHash, timingSafeEqual } from 'node:crypto';

/** Basic credentials from an Authorization header, or undefined. */
export function parseBasicAuth(
  header: string | undefined,
): { username: string; password: string } | undefined {
  const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header) : null;
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Constant-time comparison that does not leak the length either (both sides are hashed first). */
export function secretsEqual(a: string, b: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
}
