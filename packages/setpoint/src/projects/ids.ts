import { randomBytes } from 'node:crypto';

/** Prefixed random ids (`prj_…`, `run_…`) so an id says what it names. */
export function newId(prefix: 'prj' | 'run' | 'rec' | 'wsp' | 'cfg'): string {
  return `${prefix}_${randomBytes(10).toString('hex')}`;
}

export function parseJsonColumn<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}
