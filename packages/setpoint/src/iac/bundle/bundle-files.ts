import path from 'node:path/posix';
import { type Document, isMap, isScalar, isSeq, type Node, parseDocument, type YAMLMap } from 'yaml';
import { CodeRefusal, type CodeTree } from '../code-edit.js';

export interface BundleFile {
  path: string;
  text: string;
  document: Document.Parsed;
}

const rootNames = ['databricks.yml', 'databricks.yaml', 'bundle.yml', 'bundle.yaml'];

async function parseYaml(codeTree: CodeTree, filePath: string): Promise<BundleFile | null> {
  const text = await codeTree.read(filePath);
  if (text === null) return null;
  const document = parseDocument(text, { keepSourceTokens: true, uniqueKeys: true });
  const [error] = document.errors;
  if (error)
    throw new CodeRefusal(
      `${filePath} does not parse as YAML (${error.message.split('\n')[0]}); Setpoint edits only files that parse`,
    );
  return { path: filePath, text, document };
}

/** `resources/*.yml` and `**` globs as the bundle's `include` writes them, relative to the bundle root. */
function globPattern(glob: string): RegExp {
  const escaped = glob
    .split('**/')
    .map((part) =>
      part
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replaceAll('*', '[^/]*')
        .replaceAll('?', '[^/]'),
    )
    .join('(?:.*/)?');
  return new RegExp(`^${escaped}$`);
}

async function listRecursive(codeTree: CodeTree, directory: string, depth: number): Promise<string[]> {
  const names = await codeTree.list(directory);
  const files: string[] = [];
  for (const name of names) {
    const full = directory ? `${directory}/${name}` : name;
    if (name.endsWith('.yml') || name.endsWith('.yaml')) files.push(full);
    else if (depth > 0 && !name.includes('.'))
      files.push(...(await listRecursive(codeTree, full, depth - 1)));
  }
  return files;
}

export function topLevel(file: BundleFile): YAMLMap | undefined {
  return isMap(file.document.contents) ? file.document.contents : undefined;
}

/**
 * A bundle as the Databricks CLI reads it: the root file (`databricks.yml`, the linked file or the
 * nearest one above it) and every file its `include` globs name.
 */
export async function loadBundle(codeTree: CodeTree, linkedPath: string): Promise<BundleFile[]> {
  const linked = await parseYaml(codeTree, linkedPath);
  if (!linked) throw new CodeRefusal(`${linkedPath} is not in the repository`);
  let root: BundleFile | null = topLevel(linked)?.has('bundle') ? linked : null;
  let directory = path.dirname(linkedPath) === '.' ? '' : path.dirname(linkedPath);
  while (!root) {
    const names = await codeTree.list(directory);
    const name = rootNames.find((candidate) => names.includes(candidate));
    if (name) root = await parseYaml(codeTree, directory ? `${directory}/${name}` : name);
    else if (directory === '') break;
    else directory = path.dirname(directory) === '.' ? '' : path.dirname(directory);
  }
  if (!root) return [linked];
  const rootDirectory = path.dirname(root.path) === '.' ? '' : path.dirname(root.path);
  const include = topLevel(root)?.get('include', true) as Node | undefined;
  const globs = isSeq(include)
    ? include.items.filter(isScalar).map((item) => String(item.value))
    : isScalar(include)
      ? [String(include.value)]
      : [];
  const files = [root];
  if (globs.length > 0) {
    const patterns = globs.map(globPattern);
    const candidates = await listRecursive(codeTree, rootDirectory, 4);
    for (const candidate of candidates.sort()) {
      const relative = rootDirectory ? candidate.slice(rootDirectory.length + 1) : candidate;
      if (candidate === root.path || !patterns.some((pattern) => pattern.test(relative))) continue;
      const file = candidate === linked.path ? linked : await parseYaml(codeTree, candidate);
      if (file) files.push(file);
    }
  }
  if (!files.some((file) => file.path === linked.path))
    throw new CodeRefusal(
      `${linkedPath} is not part of the bundle ${root.path} (its include does not name it); link the bundle's own files`,
    );
  return files;
}
