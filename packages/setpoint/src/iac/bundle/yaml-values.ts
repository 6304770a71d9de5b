import { isScalar, type Node, parse, type Scalar } from 'yaml';
import type { CodeScalar } from '../code-edit.js';

/** A scalar as the document writes it: the same quoting as the value it replaces where that is safe. */
export function yamlScalar(value: CodeScalar, style?: Scalar['type']): string {
  if (typeof value !== 'string') return String(value);
  if (style === 'QUOTE_SINGLE') return `'${value.replaceAll("'", "''")}'`;
  if (style === 'QUOTE_DOUBLE') return JSON.stringify(value);
  // plain only when YAML reads it back as this very string (not a number, bool, null, or broken syntax)
  const plain = /^[A-Za-z0-9_./-][A-Za-z0-9_ ./-]*$/.test(value) && !/\s$/.test(value);
  if (plain) {
    try {
      if (parse(value) === value) return value;
    } catch {
      // not plain-safe: quoted below
    }
  }
  return JSON.stringify(value);
}

/** The value of a scalar node, or undefined for anything else. */
export function scalarValue(node: Node | null | undefined): CodeScalar | null | undefined {
  if (!isScalar(node)) return undefined;
  const value = node.value;
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return value;
  return undefined;
}

/** `${var.workers}` → `workers`; a scalar that is exactly one variable reference. */
export function variableName(value: unknown): string | undefined {
  return typeof value === 'string' ? /^\$\{var\.([A-Za-z0-9_-]+)\}$/.exec(value)?.[1] : undefined;
}

/** Whether a value interpolates anything (`${…}`) the editor cannot rewrite as a literal. */
export function interpolates(value: unknown): boolean {
  return typeof value === 'string' && value.includes('${');
}
