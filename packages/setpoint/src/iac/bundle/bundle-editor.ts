import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  type Node,
  type Pair,
  parseDocument,
  type Scalar,
  type YAMLMap,
} from 'yaml';
import {
  type BundleEdit,
  CodeRefusal,
  type CodeScalar,
  type CodeTree,
  type DesiredFields,
  type EditOutcome,
  type PathStep,
  where,
} from '../code-edit.js';
import { FileEdits } from '../file-edits.js';
import { lineEnding, lineStart, nextLineStart } from '../text-splice.js';
import { type BundleFile, loadBundle, topLevel } from './bundle-files.js';
import { interpolates, scalarValue, variableName, yamlScalar } from './yaml-values.js';

/** Where a bundle job lives: a file of the bundle, and which target is deployed (its overrides win). */
export interface BundleLocation {
  path: string;
  target?: string | undefined;
}

/** One mapping that defines part of the job: the base definition, or a target's override of it. */
interface Layer {
  file: BundleFile;
  map: YAMLMap;
}

interface Context {
  files: BundleFile[];
  edits: FileEdits;
  target: string | undefined;
  eol: string;
}

const rowOf = (file: BundleFile, offset: number) => file.text.slice(0, offset).split('\n').length - 1;
const at = (file: BundleFile, node: { range?: [number, number, number] | null | undefined }) =>
  where(file.path, rowOf(file, node.range?.[0] ?? 0));

function pairOf(map: YAMLMap, key: string): Pair<Scalar, Node | null> | undefined {
  return map.items.find((pair) => isScalar(pair.key) && pair.key.value === key) as
    | Pair<Scalar, Node | null>
    | undefined;
}

function child(map: YAMLMap | undefined, key: string): Node | null | undefined {
  return map ? pairOf(map, key)?.value : undefined;
}

function mapAt(map: YAMLMap | undefined, keys: string[]): YAMLMap | undefined {
  let current: Node | null | undefined = map;
  for (const key of keys) current = isMap(current) ? child(current, key) : undefined;
  return isMap(current) ? current : undefined;
}

/** The offset where the text of a pair ends (its value, nested lines and trailing comment included). */
function pairEnd(file: BundleFile, pair: Pair<Scalar, Node | null>): number {
  const end = pair.value?.range?.[2] ?? pair.key.range?.[2] ?? 0;
  return file.text[end - 1] === '\n' || end >= file.text.length ? end : nextLineStart(file.text, end);
}

function column(file: BundleFile, offset: number): number {
  return offset - lineStart(file.text, offset);
}

/** Spaces one nesting level adds in this file (two unless a nested key says otherwise). */
function indentStep(file: BundleFile): number {
  const nested = /:[ \t]*\r?\n( +)[^\s#-]/.exec(file.text);
  const base = nested ? column(file, (nested.index ?? 0) + 1) : 0;
  const parentLine = nested ? file.text.slice(lineStart(file.text, nested.index), nested.index) : '';
  const parentIndent = /^ */.exec(parentLine)?.[0].length ?? 0;
  const step = (nested?.[1]?.length ?? parentIndent + 2) - parentIndent;
  return base >= 0 && step > 0 ? step : 2;
}

function renderMapping(fields: DesiredFields, indent: string, step: string): string[] {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === null) continue;
    if (typeof value !== 'object') lines.push(`${indent}${name}: ${yamlScalar(value)}`);
    else if ('block' in value)
      lines.push(`${indent}${name}:`, ...renderMapping(value.block, indent + step, step));
    else throw new CodeRefusal(`${name}: bundles take no ${Object.keys(value)[0]} edit`);
  }
  return lines;
}

function renderFlow(fields: DesiredFields): string {
  return `{${Object.entries(fields)
    .filter(([, value]) => value !== null)
    .map(([name, value]) => {
      if (typeof value !== 'object' || value === null) return `${name}: ${yamlScalar(value as CodeScalar)}`;
      if ('block' in value) return `${name}: ${renderFlow(value.block)}`;
      throw new CodeRefusal(`${name}: bundles take no ${Object.keys(value)[0]} edit`);
    })
    .join(', ')}}`;
}

function variableSetting(
  context: Context,
  name: string,
  what: string,
): { file: BundleFile; node: Scalar; describe?: string } {
  const uses = context.files.reduce(
    (count, file) => count + (file.text.match(new RegExp(`\\$\\{var\\.${name}\\}`, 'g'))?.length ?? 0),
    0,
  );
  if (uses > 1)
    throw new CodeRefusal(
      `${what} is \${var.${name}}, which the bundle uses ${uses} times: changing it would change the others too; give this cluster its own value`,
    );
  const candidates: { file: BundleFile; node: Node | null | undefined; describe: string }[] = [];
  for (const file of context.files) {
    const top = topLevel(file);
    if (context.target) {
      const override = child(mapAt(top, ['targets', context.target, 'variables']), name);
      if (override !== undefined)
        candidates.push({
          file,
          node: isMap(override) ? child(override, 'default') : override,
          describe: `targets.${context.target}.variables.${name}`,
        });
    }
  }
  for (const file of context.files) {
    const declared = mapAt(topLevel(file), ['variables', name]);
    if (!declared) continue;
    if (child(declared, 'lookup') !== undefined)
      throw new CodeRefusal(
        `${what} is \${var.${name}}, a lookup (${at(file, declared)}); Setpoint rewrites only literal values: set it by hand`,
      );
    candidates.push({ file, node: child(declared, 'default'), describe: `variables.${name}.default` });
  }
  const setting = candidates[0];
  if (!setting || setting.node === undefined)
    throw new CodeRefusal(
      `${what} is \${var.${name}}, which has no default in the bundle: it is given at deploy time (--var or BUNDLE_VAR_${name}); set it there`,
    );
  if (!isScalar(setting.node) || interpolates(setting.node.value))
    throw new CodeRefusal(
      `${what} is \${var.${name}}, whose ${setting.describe} (${at(setting.file, setting.node ?? {})}) is not a literal; set it by hand`,
    );
  return {
    file: setting.file,
    node: setting.node,
    describe: `\${var.${name}} in ${setting.describe} (${setting.file.path})`,
  };
}

function setScalar(context: Context, file: BundleFile, node: Node, desired: CodeScalar, what: string): void {
  if (isAlias(node))
    throw new CodeRefusal(
      `${what} is the alias *${node.source} (${at(file, node)}); changing the anchor would change every use: set it by hand`,
    );
  if (!isScalar(node))
    throw new CodeRefusal(
      `${what} is a ${isMap(node) ? 'mapping' : 'list'} in ${at(file, node)}, not a value`,
    );
  let target: { file: BundleFile; node: Scalar; describe?: string } = { file, node };
  const variable = variableName(node.value);
  if (variable) target = variableSetting(context, variable, what);
  else if (interpolates(node.value))
    throw new CodeRefusal(
      `${what} is "${String(node.value)}" (${at(file, node)}); Setpoint rewrites literals and whole \${var.…} references: change it by hand`,
    );
  const current = scalarValue(target.node);
  if (current === desired) return;
  const range = target.node.range as [number, number, number];
  const text = yamlScalar(desired, target.node.type);
  if (target.node.type === 'BLOCK_LITERAL' || target.node.type === 'BLOCK_FOLDED')
    throw new CodeRefusal(`${what} is a block scalar (${at(target.file, target.node)}); set it by hand`);
  if (target.describe) context.edits.note(`${what}: ${target.describe}, ${String(current)} → ${text}`);
  context.edits.add(target.file.path, target.file.text, {
    start: range[0],
    end: range[1],
    // `key:` with nothing after it: the value needs its separating space
    text: range[0] === range[1] && target.file.text[range[0] - 1] === ':' ? ` ${text}` : text,
  });
}

function removePair(context: Context, layer: Layer, pair: Pair<Scalar, Node | null>): void {
  const { file } = layer;
  if (layer.map.flow)
    throw new CodeRefusal(
      `${String(pair.key.value)} is in a one-line mapping (${at(file, pair.key)}); write it on several lines to let Setpoint remove it`,
    );
  const start = lineStart(file.text, pair.key.range?.[0] ?? 0);
  if (file.text.slice(start, pair.key.range?.[0]).trim() !== '')
    throw new CodeRefusal(
      `${String(pair.key.value)} shares its line with other keys (${at(file, pair.key)}); write it on its own line`,
    );
  context.edits.add(file.path, file.text, { start, end: pairEnd(file, pair), text: '' });
}

/** New keys for a mapping: appended after its last key, at its indentation (or into its braces). */
function insertInto(context: Context, layer: Layer, fields: DesiredFields): void {
  const { file, map } = layer;
  const last = map.items.at(-1) as Pair<Scalar, Node | null> | undefined;
  if (map.flow || !last) {
    const range = map.range as [number, number, number];
    const close = file.text.lastIndexOf('}', range[1]);
    if (!map.flow || close < range[0])
      throw new CodeRefusal(
        `the mapping at ${at(file, map)} is empty; Setpoint adds keys only beside others`,
      );
    const inner = renderFlow(fields).slice(1, -1);
    context.edits.add(file.path, file.text, {
      start: close,
      end: close,
      text: `${last ? ', ' : ''}${inner}`,
    });
    return;
  }
  const keyStart = last.key.range?.[0] ?? 0;
  const indent = ' '.repeat(column(file, keyStart));
  const lines = renderMapping(fields, indent, ' '.repeat(indentStep(file)));
  const end = pairEnd(file, last);
  context.edits.add(file.path, file.text, {
    start: end,
    end,
    text: `${file.text[end - 1] === '\n' || end === 0 ? '' : context.eol}${lines.join(context.eol)}${context.eol}`,
  });
}

/**
 * Sets `fields` across the layers that define a mapping (a target's override first, then the base):
 * each value where it is set now (a `${var.…}` it names followed to its default or the target's value),
 * a value set nowhere added to the base, a removed one removed from every layer.
 */
function editLayers(context: Context, layers: Layer[], fields: DesiredFields, what: string): void {
  const base = layers.at(-1) as Layer;
  const additions: Record<string, DesiredFields[string]> = {};
  for (const [name, desired] of Object.entries(fields)) {
    const label = `${what}.${name}`;
    const found = layers
      .map((layer) => ({ layer, pair: pairOf(layer.map, name) }))
      .filter(
        (entry): entry is { layer: Layer; pair: Pair<Scalar, Node | null> } => entry.pair !== undefined,
      );
    if (desired === null) {
      for (const { layer, pair } of found) removePair(context, layer, pair);
      continue;
    }
    if (typeof desired !== 'object') {
      const first = found[0];
      if (!first) additions[name] = desired;
      else if (first.pair.value) setScalar(context, first.layer.file, first.pair.value, desired, label);
      else
        throw new CodeRefusal(
          `${label} has no value node (${at(first.layer.file, first.pair.key)}); set it by hand`,
        );
      continue;
    }
    if (!('block' in desired))
      throw new CodeRefusal(`${label}: bundles take no ${Object.keys(desired)[0]} edit`);
    const children: Layer[] = [];
    for (const { layer, pair } of found) {
      const value = pair.value;
      if (isAlias(value))
        throw new CodeRefusal(
          `${label} is the alias *${value.source} (${at(layer.file, value)}); changing the anchor would change every use: give this cluster its own ${name}`,
        );
      if (isScalar(value) && variableName(value.value))
        throw new CodeRefusal(
          `${label} is ${String(value.value)} (${at(layer.file, value)}), a complex variable; Setpoint edits the values written in the job: set it by hand`,
        );
      if (!isMap(value))
        throw new CodeRefusal(`${label} is not a mapping in ${at(layer.file, value ?? pair.key)}`);
      children.push({ file: layer.file, map: value });
    }
    if (children.length === 0) additions[name] = desired;
    else editLayers(context, children, desired.block, label);
  }
  if (Object.keys(additions).length > 0) insertInto(context, base, additions);
}

function seqItem(layerFile: BundleFile, node: Node | null | undefined, step: PathStep): YAMLMap | undefined {
  if (!isSeq(node)) return isMap(node) && !step.where ? node : undefined;
  const wanted = Object.entries(step.where ?? {});
  const items = node.items.filter(
    (item): item is YAMLMap =>
      isMap(item) && wanted.every(([key, value]) => scalarValue(child(item, key)) === value),
  );
  if (items.length > 1)
    throw new CodeRefusal(`${step.field} has ${items.length} entries matching in ${at(layerFile, node)}`);
  return items[0];
}

function descendLayer(layer: Layer, path: readonly PathStep[]): Layer | undefined {
  let map: YAMLMap | undefined = layer.map;
  for (const step of path) {
    const node = child(map, step.field);
    if (isAlias(node))
      throw new CodeRefusal(
        `${step.field} is the alias *${node.source} (${at(layer.file, node)}); changing the anchor would change every use: give this job its own ${step.field}`,
      );
    map = seqItem(layer.file, node, step);
    if (!map) return undefined;
  }
  return { file: layer.file, map };
}

function namePattern(name: string): RegExp {
  const parts = name.split(/\$\{[^}]*\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  // `mode: development` prefixes deployed names with "[dev user] "
  return new RegExp(`^(\\[[^\\]]*\\] )?${parts.join('.*')}$`);
}

function findJob(files: BundleFile[], job: BundleEdit['job']): { key: string; layer: Layer } {
  const jobs = files.flatMap((file) => {
    const map = mapAt(topLevel(file), ['resources', 'jobs']);
    return (map?.items ?? []).flatMap((pair) =>
      isScalar(pair.key) && isMap(pair.value)
        ? [{ key: String(pair.key.value), layer: { file, map: pair.value } }]
        : [],
    );
  });
  if (job.key) {
    const byKey = jobs.find((entry) => entry.key === job.key);
    if (byKey) return byKey;
    throw new CodeRefusal(`the bundle has no job resources.jobs.${job.key}`);
  }
  const named = jobs.filter((entry) => {
    const name = scalarValue(child(entry.layer.map, 'name'));
    return typeof name === 'string' && (name === job.name || namePattern(name).test(job.name));
  });
  if (named.length === 1) return named[0] as { key: string; layer: Layer };
  throw new CodeRefusal(
    named.length === 0
      ? `the bundle has no job named "${job.name}"${jobs.length ? ` (its jobs: ${jobs.map((entry) => entry.key).join(', ')})` : ''}; link the job's resource key`
      : `the bundle has ${named.length} jobs named "${job.name}" (${named.map((entry) => entry.key).join(', ')}); link the job's resource key`,
  );
}

/** Checks an edited YAML file still parses: an editor bug must never reach a repository. */
export function assertParsesAsYaml(path: string, text: string): void {
  const [error] = parseDocument(text, { uniqueKeys: true }).errors;
  if (error)
    throw new Error(
      `the edit of ${path} would not parse (${error.message.split('\n')[0]}); nothing was written`,
    );
}

/**
 * Writes a recommendation into a Databricks bundle in place: the job's cluster in its resource file,
 * the deployed target's override where it sets a field, and the variables the cluster names; comments,
 * quoting and every other byte stay.
 */
export async function editBundle(
  codeTree: CodeTree,
  location: BundleLocation,
  edit: BundleEdit,
): Promise<EditOutcome> {
  const files = await loadBundle(codeTree, location.path);
  const job = findJob(files, edit.job);
  const context: Context = {
    files,
    edits: new FileEdits(),
    target: location.target,
    eol: lineEnding(job.layer.file.text),
  };
  const layers: Layer[] = [];
  if (location.target) {
    const declared = files.some((file) => mapAt(topLevel(file), ['targets', location.target as string]));
    if (!declared) throw new CodeRefusal(`the bundle has no target ${location.target}`);
    for (const file of files) {
      const override = mapAt(topLevel(file), ['targets', location.target, 'resources', 'jobs', job.key]);
      const layer = override ? descendLayer({ file, map: override }, edit.path) : undefined;
      if (layer) layers.push(layer);
    }
  }
  const base = descendLayer(job.layer, edit.path);
  if (!base && layers.length === 0)
    throw new CodeRefusal(
      `resources.jobs.${job.key} has no ${edit.path.map((step) => `${step.field}${step.where ? `[${Object.values(step.where).join(', ')}]` : ''}`).join('.')} in ${job.layer.file.path}`,
    );
  if (base) layers.push(base);
  editLayers(context, layers, edit.fields, `resources.jobs.${job.key}`);
  const outcome = context.edits.outcome();
  for (const change of outcome.changes) assertParsesAsYaml(change.path, change.after);
  return outcome;
}
