import type { CodeScalar, DesiredFields } from '../code-edit.js';
import { namedChildren, type SyntaxNode } from '../syntax-tree.js';

/** Reading and writing the Python literals of a DAG file through tree-sitter-python's syntax tree. */

const escapes: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '0': '\0',
};

/** The value of a plain string literal (no f-string, no bytes, no implicit concatenation). */
export function stringValue(node: SyntaxNode): string | undefined {
  if (node.type !== 'string') return undefined;
  const start = node.child(0)?.text ?? '';
  const prefix = start.replace(/['"]+$/, '').toLowerCase();
  if (prefix.includes('f') || prefix.includes('b')) return undefined;
  const raw = prefix.includes('r');
  let value = '';
  for (const part of namedChildren(node)) {
    if (part.type === 'string_content') value += part.text;
    else if (part.type === 'escape_sequence') {
      if (raw) value += part.text;
      else {
        const escaped = escapes[part.text.slice(1)];
        if (escaped === undefined) return undefined;
        value += escaped;
      }
    } else if (part.type !== 'string_start' && part.type !== 'string_end') return undefined;
  }
  return value;
}

/** A Python literal's value (number, string, bool; None as null), else undefined. */
export function pythonLiteral(node: SyntaxNode): CodeScalar | null | undefined {
  switch (node.type) {
    case 'integer':
    case 'float': {
      const value = Number(node.text.replaceAll('_', ''));
      return Number.isFinite(value) ? value : undefined;
    }
    case 'true':
      return true;
    case 'false':
      return false;
    case 'none':
      return null;
    case 'string':
      return stringValue(node);
    case 'unary_operator': {
      const operand = node.childForFieldName('argument');
      const value = operand ? pythonLiteral(operand) : undefined;
      return node.text.startsWith('-') && typeof value === 'number' ? -value : undefined;
    }
    default:
      return undefined;
  }
}

/** The quote a file's dict keys use (the first string literal's), so new keys look like the others. */
export function quoteOf(node: SyntaxNode | undefined): '"' | "'" {
  const start = node?.type === 'string' ? node.child(0)?.text : undefined;
  return start?.endsWith("'") ? "'" : '"';
}

export function pythonString(value: string, quote: '"' | "'"): string {
  const escaped = value.replaceAll('\\', '\\\\').replaceAll('\n', '\\n').replaceAll(quote, `\\${quote}`);
  return `${quote}${escaped}${quote}`;
}

export function pythonScalar(value: CodeScalar | null, quote: '"' | "'"): string {
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return String(value);
  return pythonString(value, quote);
}

/** A dict literal on one line, e.g. `{"min_workers": 2, "max_workers": 8}`. */
export function pythonDict(fields: DesiredFields, quote: '"' | "'"): string {
  const entries = Object.entries(fields)
    .filter(([, value]) => value !== null)
    .map(([name, value]) => `${pythonString(name, quote)}: ${pythonValue(value, quote)}`);
  return `{${entries.join(', ')}}`;
}

export function pythonValue(value: DesiredFields[string], quote: '"' | "'"): string {
  if (value === null || typeof value !== 'object') return pythonScalar(value, quote);
  if ('block' in value) return pythonDict(value.block, quote);
  if ('blocks' in value) return `[${value.blocks.map((block) => pythonDict(block, quote)).join(', ')}]`;
  if ('keyed' in value)
    return `[${Object.entries(value.keyed.entries)
      .filter((entry): entry is [string, DesiredFields] => entry[1] !== null)
      .map(([key, fields]) => pythonDict({ [value.keyed.key]: key, ...fields }, quote))
      .join(', ')}]`;
  if ('expression' in value) return value.expression;
  throw new Error('a DAG literal cannot hold a Terraform reference');
}

/** The dict's pairs by key, for string keys. */
export function pairsOf(dictionary: SyntaxNode): Map<string, SyntaxNode> {
  const pairs = new Map<string, SyntaxNode>();
  for (const pair of namedChildren(dictionary).filter((child) => child.type === 'pair')) {
    const key = pair.childForFieldName('key');
    const name = key ? stringValue(key) : undefined;
    if (name !== undefined) pairs.set(name, pair);
  }
  return pairs;
}
