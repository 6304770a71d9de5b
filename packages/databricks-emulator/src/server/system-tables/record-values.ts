import { createHash } from 'node:crypto';

/** How system tables spell their values: timestamps and dates as ISO text, structs and maps as JSON text. */
export const iso = (ms: number) => new Date(ms).toISOString();
export const day = (ms: number) => iso(ms).slice(0, 10);
export const json = (value: unknown) => JSON.stringify(value);

/** A UUID-shaped id derived from its parts, so the same record gets the same id in every emulator. */
export function stableId(...parts: Array<string | number>): string {
  const hex = createHash('sha256').update(parts.join('|')).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
