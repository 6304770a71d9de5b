import {
  CodeRefusal,
  type CodeScalar,
  type DesiredFields,
  type DesiredValue,
  type PathStep,
  where,
} from '../code-edit.js';
import type { FileEdits } from '../file-edits.js';
import { namedChildren, type SyntaxNode, shortText } from '../syntax-tree.js';
import {
  indentationOf,
  isBlankLine,
  lineStart,
  nextLineStart,
  type Splice,
  startsItsLine,
} from '../text-splice.js';
import {
  attributeExpression,
  attributeName,
  attributesIn,
  blocksIn,
  findAttribute,
  type HclBlockNode,
  hclLiteral,
  literalValue,
  referencePath,
} from './hcl-syntax.js';
import type { HclFile, TerraformModule } from './terraform-module.js';

export interface HclEditContext {
  module: TerraformModule;
  edits: FileEdits;
  /** One level of indentation as the file writes it. */
  unit: string;
  eol: string;
}

/** The indentation one level adds in a file (two spaces unless its first nested line says otherwise). */
export function indentUnit(text: string): string {
  const nested = /\{[^\n]*\n([ \t]+)\S/.exec(text);
  return nested?.[1] ?? '  ';
}

function sameValue(current: CodeScalar | null | undefined, desired: CodeScalar): boolean {
  return current === desired;
}

function splice(context: HclEditContext, file: HclFile, value: Splice): void {
  context.edits.add(file.path, file.text, value);
}

/**
 * Sets the value an attribute's expression stands for: the literal itself, or the variable default,
 * `.tfvars` entry or local it names when nothing else uses it; anything else is refused by name.
 */
function setExpression(
  context: HclEditContext,
  file: HclFile,
  expression: SyntaxNode,
  desired: CodeScalar,
  what: string,
): void {
  const current = literalValue(expression);
  if (current !== undefined) {
    if (!sameValue(current, desired))
      splice(context, file, {
        start: expression.startIndex,
        end: expression.endIndex,
        text: hclLiteral(desired),
      });
    return;
  }
  const reference = referencePath(expression);
  const at = where(file.path, expression.startPosition.row);
  if (reference?.length === 2 && (reference[0] === 'var' || reference[0] === 'local')) {
    const [kind, name] = reference as ['var' | 'local', string];
    const others = context.module
      .uses(kind, name)
      .filter((use) => !(use.file === file && use.node.startIndex === expression.startIndex));
    if (others.length > 0)
      throw new CodeRefusal(
        `${what} is ${kind}.${name} (${at}), which is also used at ${others.map((use) => where(use.file.path, use.node.startPosition.row)).join(', ')}: changing it would change those too; give this cluster its own value`,
      );
    if (kind === 'var' && context.module.ignoredTfvars.length > 0)
      throw new CodeRefusal(
        `${what} is var.${name} (${at}) and the module has ${context.module.ignoredTfvars.join(', ')}, which Setpoint does not edit; set it by hand`,
      );
    const setting = kind === 'var' ? context.module.variableSetting(name) : context.module.localSetting(name);
    if ('missing' in setting) throw new CodeRefusal(`${what} is ${kind}.${name} (${at}): ${setting.missing}`);
    const value = attributeExpression(setting.attribute);
    const settingValue = value ? literalValue(value) : undefined;
    if (!value || settingValue === undefined)
      throw new CodeRefusal(
        `${what} is ${kind}.${name}, set to \`${value ? shortText(value) : ''}\` in ${where(setting.file.path, setting.attribute.startPosition.row)}; Setpoint rewrites only literal values: set it by hand`,
      );
    if (sameValue(settingValue, desired)) return;
    splice(context, setting.file, {
      start: value.startIndex,
      end: value.endIndex,
      text: hclLiteral(desired),
    });
    context.edits.note(
      `${what}: ${setting.describe}, ${hclLiteral(settingValue ?? 'null')} → ${hclLiteral(desired)}`,
    );
    return;
  }
  throw new CodeRefusal(
    `${what} is \`${shortText(expression)}\` (${at}); Setpoint rewrites literals, variables (their default or a .tfvars entry) and locals: change it by hand or make it one of those`,
  );
}

/** The lines an attribute or block occupies, when nothing else shares them (a trailing comment may). */
function ownLines(file: HclFile, node: SyntaxNode, what: string): { start: number; end: number } {
  const rest = file.text.slice(node.endIndex, nextLineStart(file.text, node.endIndex));
  if (!startsItsLine(file.text, node.startIndex) || !/^[ \t]*((#|\/\/).*)?\r?\n?$/.test(rest))
    throw new CodeRefusal(
      `${what} shares its line with other code (${where(file.path, node.startPosition.row)}); put it on its own line and propose again`,
    );
  let start = lineStart(file.text, node.startIndex);
  const end = nextLineStart(file.text, node.endIndex);
  // a blank line left between two others (or before a closing brace) goes with what it separated
  const previous = lineStart(file.text, start - 1);
  const following = file.text.slice(end, nextLineStart(file.text, end));
  if (
    start > 0 &&
    isBlankLine(file.text, previous) &&
    (isBlankLine(file.text, end) || /^\s*\}/.test(following))
  )
    start = previous;
  return { start, end };
}

function blocksNamed(body: SyntaxNode | null, name: string): HclBlockNode[] {
  return blocksIn(body).filter((block) => block.type === name);
}

function refuseDynamic(file: HclFile, body: SyntaxNode | null, name: string, what: string): void {
  const generated = blocksIn(body).find((block) => block.type === 'dynamic' && block.labels[0] === name);
  if (generated)
    throw new CodeRefusal(
      `${what} is generated by a dynamic "${name}" block (${where(file.path, generated.node.startPosition.row)}); Setpoint edits only blocks written out`,
    );
}

/** Attribute lines for new values, aligned among themselves (`terraform fmt` aligns consecutive `=`). */
function attributeLines(entries: [string, string][], indent: string, width: number): string[] {
  return entries.map(([name, value]) => `${indent}${name.padEnd(width)} = ${value}`);
}

function renderValue(value: DesiredValue): string | undefined {
  if (value === null) return undefined;
  if (typeof value !== 'object') return hclLiteral(value);
  if ('expression' in value) return value.expression;
  return undefined;
}

/** A new block as `terraform fmt` writes it: attributes aligned, then nested blocks after a blank line. */
export function renderBlock(
  context: HclEditContext,
  header: string,
  fields: DesiredFields,
  indent: string,
): string[] {
  const inner = indent + context.unit;
  const scalars = Object.entries(fields)
    .map(([name, value]) => [name, renderValue(value)] as const)
    .filter((entry): entry is [string, string] => entry[1] !== undefined);
  const width = Math.max(0, ...scalars.map(([name]) => name.length));
  const lines = [`${indent}${header} {`, ...attributeLines(scalars, inner, width)];
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value !== 'object' || value === null) continue;
    const nested = 'block' in value ? [value.block] : 'blocks' in value ? value.blocks : [];
    for (const block of nested) {
      if (lines.length > 1) lines.push('');
      lines.push(...renderBlock(context, name, block, inner));
    }
  }
  lines.push(`${indent}}`);
  return lines;
}

/** Where new attribute lines go in a body, and how wide their names are padded. */
function attributeInsertion(
  file: HclFile,
  body: SyntaxNode,
  newNames: string[],
): { at: number; indent: string; width: number; separate: boolean } {
  const attributes = attributesIn(body);
  const last = attributes.at(-1);
  const longest = Math.max(...newNames.map((name) => name.length));
  if (!last) {
    const first = namedChildren(body)[0] as SyntaxNode;
    return {
      at: lineStart(file.text, first.startIndex),
      indent: indentationOf(file.text, first.startIndex),
      width: longest,
      separate: false,
    };
  }
  // the run of single-line attributes `last` ends: new names join it when they fit its alignment
  const group: SyntaxNode[] = [];
  for (let index = attributes.length - 1; index >= 0; index -= 1) {
    const attribute = attributes[index] as SyntaxNode;
    const next = group[0];
    if (attribute.startPosition.row !== attribute.endPosition.row) break;
    if (next && next.startPosition.row !== attribute.endPosition.row + 1) break;
    group.unshift(attribute);
  }
  const indent = indentationOf(file.text, last.startIndex);
  const at = nextLineStart(file.text, last.endIndex);
  const width = Math.max(0, ...group.map((attribute) => attributeName(attribute).length));
  const equalsColumn = (attribute: SyntaxNode) =>
    namedChildren(attribute).length > 0
      ? (attribute.children.find((child) => child?.type === '=')?.startPosition.column ?? -1)
      : -1;
  const aligned =
    group.length > 0 && group.every((attribute) => equalsColumn(attribute) === indent.length + width + 1);
  if (aligned && longest <= width) return { at, indent, width, separate: false };
  return { at, indent, width: longest, separate: true };
}

/** The offset of a body's closing brace line, where new blocks go; refused for one-line blocks. */
function closingLine(file: HclFile, block: HclBlockNode, what: string): number {
  const end = block.node.lastChild as SyntaxNode;
  if (!startsItsLine(file.text, end.startIndex))
    throw new CodeRefusal(
      `${what} is written on one line (${where(file.path, block.node.startPosition.row)}); put its closing brace on its own line and propose again`,
    );
  return lineStart(file.text, end.startIndex);
}

function literalAttributes(block: HclBlockNode): Record<string, CodeScalar | null | undefined> {
  return Object.fromEntries(
    attributesIn(block.body).map((attribute) => {
      const expression = attributeExpression(attribute);
      return [attributeName(attribute), expression ? literalValue(expression) : undefined];
    }),
  );
}

function sameBlocks(existing: HclBlockNode[], desired: DesiredFields[]): boolean {
  if (existing.length !== desired.length) return false;
  return existing.every((block, index) => {
    const wanted = desired[index] as DesiredFields;
    const actual = literalAttributes(block);
    return (
      blocksIn(block.body).length === 0 &&
      Object.keys(actual).length === Object.keys(wanted).length &&
      Object.entries(wanted).every(([name, value]) => actual[name] === value)
    );
  });
}

/**
 * Sets `fields` in a block: attributes changed where they stand, added after the last attribute (aligned
 * like their neighbours), removed with their line; nested blocks edited, added before the closing brace
 * or removed; repeated blocks replaced in place. Nothing outside those fields changes.
 */
export function editBlock(
  context: HclEditContext,
  file: HclFile,
  block: HclBlockNode,
  fields: DesiredFields,
  what: string,
): void {
  const body = block.body;
  const newAttributes: [string, string][] = [];
  const newBlocks: string[][] = [];
  const blockIndent = indentationOf(file.text, block.node.startIndex);
  const childIndent = body
    ? indentationOf(file.text, (namedChildren(body)[0] as SyntaxNode).startIndex)
    : blockIndent + context.unit;
  for (const [name, desired] of Object.entries(fields)) {
    const label = `${what}.${name}`;
    const attribute = findAttribute(body, name);
    const existing = blocksNamed(body, name);
    if (desired === null) {
      if (attribute) splice(context, file, { ...ownLines(file, attribute, label), text: '' });
      for (const child of existing) splice(context, file, { ...ownLines(file, child.node, label), text: '' });
      if (!attribute && existing.length === 0) refuseDynamic(file, body, name, label);
      continue;
    }
    if (typeof desired !== 'object' || 'expression' in desired) {
      if (existing.length > 0)
        throw new CodeRefusal(
          `${label} is a block in ${where(file.path, existing[0]!.node.startPosition.row)}, not a value`,
        );
      if (attribute) {
        const expression = attributeExpression(attribute) as SyntaxNode;
        if (typeof desired === 'object') {
          if (expression.text !== desired.expression)
            splice(context, file, {
              start: expression.startIndex,
              end: expression.endIndex,
              text: desired.expression,
            });
        } else setExpression(context, file, expression, desired, label);
      } else newAttributes.push([name, renderValue(desired) as string]);
      continue;
    }
    if (attribute)
      throw new CodeRefusal(
        `${label} is set as \`${shortText(attribute)}\` (${where(file.path, attribute.startPosition.row)}); Setpoint edits it only as a block`,
      );
    if ('block' in desired) {
      if (existing.length > 1)
        throw new CodeRefusal(
          `${label} appears ${existing.length} times in ${where(file.path, block.node.startPosition.row)}`,
        );
      if (existing[0]) editBlock(context, file, existing[0], desired.block, label);
      else {
        refuseDynamic(file, body, name, label);
        newBlocks.push(renderBlock(context, name, desired.block, childIndent));
      }
      continue;
    }
    if ('blocks' in desired) {
      if (sameBlocks(existing, desired.blocks)) continue;
      refuseDynamic(file, body, name, label);
      const rendered = desired.blocks.map((fieldsOfBlock) =>
        renderBlock(context, name, fieldsOfBlock, childIndent),
      );
      const [first, ...rest] = existing;
      if (!first) {
        newBlocks.push(...rendered);
        continue;
      }
      const range = ownLines(file, first.node, label);
      const start = lineStart(file.text, first.node.startIndex);
      const lines = rendered.flatMap((lines, index) => (index === 0 ? lines : ['', ...lines]));
      splice(context, file, {
        start,
        end: range.end,
        text: lines.length > 0 ? `${lines.join(context.eol)}${context.eol}` : '',
      });
      for (const other of rest) splice(context, file, { ...ownLines(file, other.node, label), text: '' });
      continue;
    }
    throw new CodeRefusal(`${label}: Terraform has no keyed lists; this edit is not for Terraform`);
  }
  if (newAttributes.length === 0 && newBlocks.length === 0) return;
  if (!body) {
    // `name {}`: the block gets its first lines
    const start = block.node.children.find((child) => child?.type === 'block_start') as SyntaxNode;
    const end = block.node.lastChild as SyntaxNode;
    const width = Math.max(0, ...newAttributes.map(([name]) => name.length));
    const lines = [
      ...attributeLines(newAttributes, childIndent, width),
      ...newBlocks.flatMap((lines, index) =>
        index > 0 || newAttributes.length > 0 ? ['', ...lines] : lines,
      ),
    ];
    splice(context, file, {
      start: start.endIndex,
      end: end.startIndex,
      text: `${context.eol}${lines.join(context.eol)}${context.eol}${blockIndent}`,
    });
    return;
  }
  if (newAttributes.length > 0) {
    const place = attributeInsertion(
      file,
      body,
      newAttributes.map(([name]) => name),
    );
    if (!startsItsLine(file.text, body.startIndex))
      throw new CodeRefusal(
        `${what} is written on one line (${where(file.path, block.node.startPosition.row)}); put it on several lines and propose again`,
      );
    const lines = attributeLines(newAttributes, place.indent, place.width);
    splice(context, file, {
      start: place.at,
      end: place.at,
      text: `${place.separate ? context.eol : ''}${lines.join(context.eol)}${context.eol}`,
    });
  }
  if (newBlocks.length > 0) {
    const at = closingLine(file, block, what);
    const lines = newBlocks.flatMap((lines) => ['', ...lines]);
    splice(context, file, { start: at, end: at, text: `${lines.join(context.eol)}${context.eol}` });
  }
}

/** Follows path steps from a block to the one holding the managed fields. */
export function descend(
  file: HclFile,
  block: HclBlockNode,
  path: readonly PathStep[],
  what: string,
): { block: HclBlockNode; what: string } {
  let current = block;
  let label = what;
  for (const step of path) {
    const wanted = Object.entries(step.where ?? {});
    const named = blocksNamed(current.body, step.field);
    const matching = named.filter((candidate) => {
      const values = literalAttributes(candidate);
      return wanted.every(([name, value]) => values[name] === value);
    });
    const description = `${step.field}${wanted.length ? `[${wanted.map(([name, value]) => `${name} = "${value}"`).join(', ')}]` : ''}`;
    label = `${label}.${description}`;
    if (matching.length !== 1) {
      refuseDynamic(file, current.body, step.field, label);
      throw new CodeRefusal(
        matching.length === 0
          ? `${file.path} has no ${description} in ${where(file.path, current.node.startPosition.row)}`
          : `${file.path} has ${matching.length} ${description} blocks in ${where(file.path, current.node.startPosition.row)}`,
      );
    }
    current = matching[0] as HclBlockNode;
  }
  return { block: current, what: label };
}
