import {
  CodeRefusal,
  type CodeScalar,
  type CodeTree,
  type DagEdit,
  type DesiredFields,
  type EditOutcome,
  type PathStep,
  where,
} from '../code-edit.js';
import { FileEdits } from '../file-edits.js';
import { firstSyntaxError, namedChildren, parseSyntax, type SyntaxNode, shortText } from '../syntax-tree.js';
import { indentationOf, lineEnding, lineStart, nextLineStart, startsItsLine } from '../text-splice.js';
import {
  pairsOf,
  pythonDict,
  pythonLiteral,
  pythonScalar,
  pythonValue,
  quoteOf,
  stringValue,
} from './python-syntax.js';

/** Where an Airflow task lives: the DAG file, and the task's `task_id` when the file has several. */
export interface DagLocation {
  path: string;
  taskId?: string | undefined;
}

interface Context {
  path: string;
  text: string;
  root: SyntaxNode;
  edits: FileEdits;
  eol: string;
  quote: '"' | "'";
  fallback: string;
}

const at = (context: Context, node: SyntaxNode) => where(context.path, node.startPosition.row);

function descendants(node: SyntaxNode, type: string): SyntaxNode[] {
  return node.descendantsOfType(type).filter((found): found is SyntaxNode => found !== null);
}

/** `NAME = <value>` when the file assigns NAME once and reads it once (here): the value to edit instead. */
function resolveName(context: Context, name: SyntaxNode, what: string): SyntaxNode {
  const assignments = descendants(context.root, 'assignment').filter(
    (assignment) => assignment.childForFieldName('left')?.text === name.text,
  );
  const reads = descendants(context.root, 'identifier').filter(
    (identifier) =>
      identifier.text === name.text &&
      !assignments.some((assignment) => assignment.childForFieldName('left')?.id === identifier.id) &&
      // `new_cluster=` names a parameter, `x.CLUSTER` an attribute: neither reads the name
      identifier.parent?.childForFieldName('name')?.id !== identifier.id &&
      identifier.parent?.childForFieldName('attribute')?.id !== identifier.id,
  );
  const value = assignments[0]?.childForFieldName('right');
  if (assignments.length !== 1 || !value)
    throw new CodeRefusal(
      `${what} is ${name.text} (${at(context, name)}), which ${context.path} does not assign exactly once; ${context.fallback}`,
    );
  if (reads.length > 1)
    throw new CodeRefusal(
      `${what} is ${name.text} (${at(context, name)}), which is also used at ${reads
        .filter((read) => read.id !== name.id)
        .map((read) => at(context, read))
        .join(', ')}: changing it would change those too; give this task its own value`,
    );
  return value;
}

/** The literal a value node stands for, following one plain name to its assignment. */
function literalNode(context: Context, node: SyntaxNode, what: string, type: string): SyntaxNode {
  const resolved = node.type === 'identifier' ? resolveName(context, node, what) : node;
  if (resolved.type !== type && !(type === 'scalar' && pythonLiteral(resolved) !== undefined))
    throw new CodeRefusal(
      `${what} is \`${shortText(node)}\` (${at(context, node)}), not a literal Setpoint can rewrite; ${context.fallback}`,
    );
  return resolved;
}

function setScalar(context: Context, value: SyntaxNode, desired: CodeScalar, what: string): void {
  const literal = literalNode(context, value, what, 'scalar');
  if (pythonLiteral(literal) === desired) return;
  const quote = literal.type === 'string' ? quoteOf(literal) : context.quote;
  context.edits.add(context.path, context.text, {
    start: literal.startIndex,
    end: literal.endIndex,
    text: pythonScalar(desired, quote),
  });
}

/** The text range an entry of a dict or list occupies with its comma: its own lines, or inline. */
function entryRange(context: Context, node: SyntaxNode): { start: number; end: number } {
  const next = node.nextSibling;
  const end = next?.type === ',' ? next.endIndex : node.endIndex;
  const rest = context.text.slice(end, nextLineStart(context.text, end));
  if (startsItsLine(context.text, node.startIndex) && /^[ \t]*(#.*)?\r?\n?$/.test(rest))
    return { start: lineStart(context.text, node.startIndex), end: nextLineStart(context.text, end) };
  const previous = node.previousSibling;
  // inline: `, "key": value` goes with the comma before it (or the one after it when first)
  if (previous?.type === ',') return { start: previous.startIndex, end: node.endIndex };
  return {
    start: node.startIndex,
    end: next?.type === ',' ? context.text.slice(end).search(/\S/) + end : end,
  };
}

/** Appends entries to a dict or list: on new lines like the last entry, or inline before the bracket. */
function appendEntries(context: Context, container: SyntaxNode, entries: string[]): void {
  if (entries.length === 0) return;
  const items = namedChildren(container).filter((child) => child.type !== 'comment');
  const last = items.at(-1);
  const close = container.lastChild as SyntaxNode;
  if (last && startsItsLine(context.text, last.startIndex) && startsItsLine(context.text, close.startIndex)) {
    const comma = last.nextSibling?.type === ',' ? last.nextSibling : null;
    const indent = indentationOf(context.text, last.startIndex);
    const after = comma ? comma.endIndex : last.endIndex;
    if (!comma)
      context.edits.add(context.path, context.text, { start: last.endIndex, end: last.endIndex, text: ',' });
    const lineEnd = nextLineStart(context.text, after);
    context.edits.add(context.path, context.text, {
      start: lineEnd,
      end: lineEnd,
      text: entries.map((entry) => `${indent}${entry},${context.eol}`).join(''),
    });
    return;
  }
  if (!last && !startsItsLine(context.text, close.startIndex)) {
    context.edits.add(context.path, context.text, {
      start: close.startIndex,
      end: close.startIndex,
      text: entries.join(', '),
    });
    return;
  }
  if (!last)
    throw new CodeRefusal(`the empty literal at ${at(context, container)} spans lines; fill it by hand`);
  const comma = last.nextSibling?.type === ',' ? last.nextSibling : null;
  const after = comma ? comma.endIndex : last.endIndex;
  context.edits.add(context.path, context.text, {
    start: after,
    end: after,
    text: `${comma ? ' ' : ', '}${entries.join(', ')}${comma ? ',' : ''}`,
  });
}

function matches(item: SyntaxNode, wanted: [string, string][]): boolean {
  if (item.type !== 'dictionary') return false;
  const pairs = pairsOf(item);
  return wanted.every(([key, value]) => {
    const node = pairs.get(key)?.childForFieldName('value');
    return node !== null && node !== undefined && stringValue(node) === value;
  });
}

/** Sets `fields` in a dict literal (its entries edited in place, added after the last, removed with their line). */
function editDict(context: Context, dictionary: SyntaxNode, fields: DesiredFields, what: string): void {
  const pairs = pairsOf(dictionary);
  if (namedChildren(dictionary).some((child) => child.type === 'dictionary_splat'))
    throw new CodeRefusal(
      `${what} unpacks another dict with ** (${at(context, dictionary)}); Setpoint cannot tell which value wins: ${context.fallback}`,
    );
  const added: string[] = [];
  for (const [name, desired] of Object.entries(fields)) {
    const label = `${what}["${name}"]`;
    const pair = pairs.get(name);
    const value = pair?.childForFieldName('value') ?? null;
    if (desired === null) {
      if (pair) context.edits.add(context.path, context.text, { ...entryRange(context, pair), text: '' });
      continue;
    }
    const key = `${pythonScalar(name, context.quote)}: `;
    if (typeof desired !== 'object') {
      if (value) setScalar(context, value, desired, label);
      else added.push(`${key}${pythonScalar(desired, context.quote)}`);
      continue;
    }
    if ('expression' in desired || 'reference' in desired)
      throw new CodeRefusal(`${label}: a DAG takes no expression edit`);
    if (!value) {
      added.push(`${key}${pythonValue(desired, context.quote)}`);
      continue;
    }
    if ('block' in desired) {
      editDict(context, literalNode(context, value, label, 'dictionary'), desired.block, label);
      continue;
    }
    const list = literalNode(context, value, label, 'list');
    if ('blocks' in desired) {
      const text = pythonValue(desired, context.quote);
      if (list.text.replace(/\s|,(?=\s*[\]}])/g, '') !== text.replace(/\s/g, ''))
        context.edits.add(context.path, context.text, { start: list.startIndex, end: list.endIndex, text });
      continue;
    }
    const items = namedChildren(list).filter((child) => child.type !== 'comment');
    const newItems: string[] = [];
    for (const [keyValue, entryFields] of Object.entries(desired.keyed.entries)) {
      const found = items.filter((item) => matches(item, [[desired.keyed.key, keyValue]]));
      if (found.length > 1)
        throw new CodeRefusal(
          `${label} has ${found.length} entries with ${desired.keyed.key} ${keyValue} (${at(context, list)})`,
        );
      const [item] = found;
      if (entryFields === null) {
        if (item) context.edits.add(context.path, context.text, { ...entryRange(context, item), text: '' });
      } else if (item) editDict(context, item, entryFields, `${label}[${keyValue}]`);
      else newItems.push(pythonDict({ [desired.keyed.key]: keyValue, ...entryFields }, context.quote));
    }
    appendEntries(context, list, newItems);
  }
  appendEntries(context, dictionary, added);
}

function follow(
  context: Context,
  start: SyntaxNode,
  path: readonly PathStep[],
  what: string,
): SyntaxNode | null {
  let current = literalNode(context, start, what, 'dictionary');
  let label = what;
  for (const step of path) {
    label = `${label}["${step.field}"]`;
    const value = pairsOf(current).get(step.field)?.childForFieldName('value');
    if (!value) return null;
    if (!step.where) {
      current = literalNode(context, value, label, 'dictionary');
      continue;
    }
    const list = literalNode(context, value, label, 'list');
    const wanted = Object.entries(step.where);
    const items = namedChildren(list).filter((item) => matches(item, wanted));
    if (items.length !== 1) return null;
    current = items[0] as SyntaxNode;
  }
  return current;
}

function operatorName(call: SyntaxNode): string {
  const callee = call.childForFieldName('function');
  return callee?.type === 'attribute'
    ? (callee.childForFieldName('attribute')?.text ?? '')
    : (callee?.text ?? '');
}

function keywordArguments(call: SyntaxNode): Map<string, SyntaxNode> {
  const found = new Map<string, SyntaxNode>();
  for (const argument of namedChildren(call.childForFieldName('arguments') as SyntaxNode)) {
    const name = argument.childForFieldName('name');
    const value = argument.childForFieldName('value');
    if (argument.type === 'keyword_argument' && name && value) found.set(name.text, value);
  }
  return found;
}

function findOperator(context: Context, edit: DagEdit, taskId: string | undefined): SyntaxNode {
  const calls = descendants(context.root, 'call').filter((call) =>
    edit.operators.includes(operatorName(call)),
  );
  const chosen = taskId
    ? calls.filter((call) => {
        const id = keywordArguments(call).get('task_id');
        return id !== undefined && stringValue(id) === taskId;
      })
    : calls;
  if (chosen.length === 1) return chosen[0] as SyntaxNode;
  const kinds = edit.operators.join(' or ');
  throw new CodeRefusal(
    chosen.length === 0
      ? `${context.path} has no ${kinds}${taskId ? ` with task_id "${taskId}"` : ''}${calls.length ? '' : ` written as a call`}; ${context.fallback}`
      : `${context.path} has ${chosen.length} ${kinds} tasks; link the task_id to edit`,
  );
}

/**
 * Writes a recommendation into an Airflow DAG file in place: the operator's cluster dict (its keyword
 * argument, or the module-level dict it names once), literal values only; anything computed is refused
 * with the pre-execute hook to use instead.
 */
export async function editDag(
  codeTree: CodeTree,
  location: DagLocation,
  edit: DagEdit,
): Promise<EditOutcome> {
  const text = await codeTree.read(location.path);
  if (text === null) throw new CodeRefusal(`${location.path} is not in the repository`);
  const tree = await parseSyntax('python', text);
  try {
    const error = firstSyntaxError(tree.rootNode);
    if (error) throw new CodeRefusal(`${location.path} does not parse as Python (at ${error})`);
    const firstKey = descendants(tree.rootNode, 'pair')[0]?.childForFieldName('key') ?? undefined;
    const context: Context = {
      path: location.path,
      text,
      root: tree.rootNode,
      edits: new FileEdits(),
      eol: lineEnding(text),
      quote: quoteOf(firstKey),
      fallback: `use ${edit.fallback} as the operator's pre_execute instead`,
    };
    const call = findOperator(context, edit, location.taskId);
    const argumentsByName = keywordArguments(call);
    let cluster: SyntaxNode | null = null;
    let what = '';
    for (const location of edit.locations) {
      const argument = argumentsByName.get(location.argument);
      if (!argument) continue;
      what = `${operatorName(call)}.${location.argument}`;
      cluster = follow(context, argument, location.path, what);
      if (cluster) {
        what += location.path.map((step) => `["${step.field}"]`).join('');
        break;
      }
    }
    if (!cluster)
      throw new CodeRefusal(
        `the ${operatorName(call)} at ${at(context, call)} has no literal ${edit.locations.map((entry) => [entry.argument, ...entry.path.map((step) => step.field)].join('.')).join(' or ')}; ${context.fallback}`,
      );
    editDict(context, cluster, edit.fields, what);
    const outcome = context.edits.outcome();
    for (const change of outcome.changes) {
      const edited = await parseSyntax('python', change.after);
      const broken = firstSyntaxError(edited.rootNode);
      edited.delete();
      if (broken)
        throw new Error(`the edit of ${change.path} would not parse (at ${broken}); nothing was written`);
    }
    return outcome;
  } finally {
    tree.delete();
  }
}
