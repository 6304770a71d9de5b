import { createRequire } from 'node:module';
import { Language, type Node, Parser, type Tree } from 'web-tree-sitter';

export type { Node as SyntaxNode, Tree as SyntaxTree } from 'web-tree-sitter';

/**
 * Concrete syntax trees of the files Setpoint edits, from tree-sitter's grammars compiled to
 * WebAssembly (the npm packages ship the `.wasm` beside their native bindings; only the WebAssembly
 * is loaded, so nothing is compiled or downloaded on install, on any Node version). Node positions are
 * offsets into the JavaScript string, so an edit is a splice of the original text.
 */
export type GrammarName = 'hcl' | 'python';

const require = createRequire(import.meta.url);
const grammarFiles: Record<GrammarName, string> = {
  hcl: '@tree-sitter-grammars/tree-sitter-hcl/tree-sitter-hcl.wasm',
  python: 'tree-sitter-python/tree-sitter-python.wasm',
};

let runtime: Promise<void> | undefined;
const languages = new Map<GrammarName, Promise<Language>>();

async function language(name: GrammarName): Promise<Language> {
  runtime ??= Parser.init();
  await runtime;
  let loaded = languages.get(name);
  if (!loaded) {
    loaded = Language.load(require.resolve(grammarFiles[name]));
    languages.set(name, loaded);
  }
  return loaded;
}

/** Parses `text`; the caller owns the tree (`delete()` it when done: WebAssembly memory is not collected). */
export async function parseSyntax(name: GrammarName, text: string): Promise<Tree> {
  const grammar = await language(name);
  const parser = new Parser();
  try {
    parser.setLanguage(grammar);
    const tree = parser.parse(text);
    if (!tree) throw new Error(`the ${name} parser returned no tree`);
    return tree;
  } finally {
    parser.delete();
  }
}

/** The first syntax error of a tree (an ERROR or MISSING node), as `line:column`, or null. */
export function firstSyntaxError(root: Node): string | null {
  if (!root.hasError) return null;
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (node.isError || node.isMissing)
      return `${node.startPosition.row + 1}:${node.startPosition.column + 1}`;
    if (node.hasError) for (const child of [...node.children].reverse()) if (child) stack.push(child);
  }
  return 'unknown position';
}

/** Named children of a node, without the nulls the binding's types allow. */
export function namedChildren(node: Node): Node[] {
  return node.namedChildren.filter((child): child is Node => child !== null);
}

/** A node's text on one line, shortened, for messages that name an expression. */
export function shortText(node: Node): string {
  const text = node.text.replace(/\s+/g, ' ');
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}
