import { randomBytes } from 'node:crypto';

/** Prefixed random ids (`prj_…`, `run_…`) so an id says what it names. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(10).toString('hex')}`;
}
