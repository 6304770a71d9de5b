import { hclQuote } from '../../export/hcl-writer.js';
import type { CodeScalar } from '../code-edit.js';
import { namedChildren, type SyntaxNode } from '../syntax-tree.js';

/** Reading tree-sitter-hcl's concrete syntax tree: blocks, attributes, literals and plain references. */

export interface HclBlockNode {
  node: SyntaxNode;
  type: string;
  labels: string[];
  /** The `body` node; null for an empty block `{}`. */
  body: SyntaxNode | null;
}

export function blockOf(node: SyntaxNode): HclBlockNode {
  const children = namedChildren(node);
  const type = children.find((child) => child.type === 'identifier')?.text ?? '';
  const labels = children
    .filter((child) => child.type === 'string_lit' || (child.type === 'identifier' && child !== children[0]))
    .map((child) => (child.type === 'string_lit' ? (stringValue(child) ?? child.text) : child.text));
  return { node, type, labels, body: children.find((child) => child.type === 'body') ?? null };
}

/** The `body` node of a file (its top level). */
export function fileBody(root: SyntaxNode): SyntaxNode | null {
  return namedChildren(root).find((child) => child.type === 'body') ?? null;
}

export function blocksIn(body: SyntaxNode | null): HclBlockNode[] {
  return body
    ? namedChildren(body)
        .filter((child) => child.type === 'block')
        .map(blockOf)
    : [];
}

export function attributesIn(body: SyntaxNode | null): SyntaxNode[] {
  return body ? namedChildren(body).filter((child) => child.type === 'attribute') : [];
}

export function attributeName(attribute: SyntaxNode): string {
  return namedChildren(attribute)[0]?.text ?? '';
}

export function attributeExpression(attribute: SyntaxNode): SyntaxNode | null {
  return namedChildren(attribute).find((child) => child.type === 'expression') ?? null;
}

export function findAttribute(body: SyntaxNode | null, name: string): SyntaxNode | undefined {
  return attributesIn(body).find((attribute) => attributeName(attribute) === name);
}

function stringValue(stringLit: SyntaxNode): string | undefined {
  // A quoted string without interpolation: HCL's escapes are JSON's plus `$${` and `%%{`.
  const parts = namedChildren(stringLit).map((child) => child.type);
  if (
    parts.some(
      (part) =>
        part !== 'quoted_template_start' && part !== 'template_literal' && part !== 'quoted_template_end',
    )
  )
    return undefined;
  try {
    const parsed: unknown = JSON.parse(stringLit.text.replaceAll('$${', '${').replaceAll('%%{', '%{'));
    return typeof parsed === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The value of a literal expression (number, bool, string without interpolation), else undefined. */
export function literalValue(expression: SyntaxNode): CodeScalar | null | undefined {
  const [inner] = namedChildren(expression);
  if (!inner) return undefined;
  if (inner.type === 'operation') {
    const unary = namedChildren(inner)[0];
    const operand = unary?.type === 'unary_operation' ? namedChildren(unary)[0] : undefined;
    if (unary?.text.startsWith('-') && operand?.type === 'literal_value') {
      const number = namedChildren(operand)[0];
      if (number?.type === 'numeric_lit') return -Number(number.text);
    }
    return undefined;
  }
  if (inner.type === 'template_expr') {
    const quoted = namedChildren(inner)[0];
    return quoted?.type === 'quoted_template' ? stringValue(quoted) : undefined;
  }
  if (inner.type !== 'literal_value') return undefined;
  const literal = namedChildren(inner)[0];
  if (!literal) return undefined;
  if (literal.type === 'numeric_lit') return Number(literal.text);
  if (literal.type === 'bool_lit') return literal.text === 'true';
  if (literal.type === 'null_lit') return null;
  if (literal.type === 'string_lit') return stringValue(literal);
  return undefined;
}

/** `var.workers` → ['var', 'workers']: a variable and attribute accesses only, else undefined. */
export function referencePath(expression: SyntaxNode): string[] | undefined {
  const children = namedChildren(expression);
  const [head, ...rest] = children;
  if (head?.type !== 'variable_expr' || rest.some((child) => child.type !== 'get_attr')) return undefined;
  return [head.text, ...rest.map((child) => child.text.replace(/^\./, ''))];
}

/** Every plain reference in a subtree, e.g. each `var.workers` of a file, with its node. */
export function referencesIn(node: SyntaxNode): { path: string[]; node: SyntaxNode }[] {
  const found: { path: string[]; node: SyntaxNode }[] = [];
  const stack: SyntaxNode[] = [node];
  while (stack.length > 0) {
    const current = stack.pop() as SyntaxNode;
    if (current.type === 'expression') {
      const children = namedChildren(current);
      const head = children[0];
      if (head?.type === 'variable_expr') {
        const path = [head.text];
        for (const child of children.slice(1)) {
          if (child.type !== 'get_attr') break;
          path.push(child.text.replace(/^\./, ''));
        }
        found.push({ path, node: current });
      }
    }
    stack.push(...namedChildren(current));
  }
  return found;
}

/** An HCL literal: numbers and bools as written, strings quoted with HCL's escapes. */
export function hclLiteral(value: CodeScalar): string {
  return typeof value === 'string' ? hclQuote(value) : String(value);
}
