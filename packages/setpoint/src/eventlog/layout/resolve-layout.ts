import { NotFoundError, ValidationError } from '@setpoint/foundation/errors';
import type { ByteSource } from '../codec/byte-source.js';
import { detectCodec } from '../codec/detect-codec.js';
import { type EventLogLimits, resolveLimits } from '../eventlog-limits.js';
import { diskTree, type LogTree, zipTree } from './log-tree.js';

export type LayoutKind = 'file' | 'rolling' | 'databricks';

/** One application's event log: the ordered parts whose lines, concatenated, are the log. */
export interface EventLogUnit {
  /** Context name: a file name, a rolling directory name or a Databricks spark_context_id. */
  name: string;
  path: string;
  layout: LayoutKind;
  inProgress: boolean;
  parts: ByteSource[];
  /** Databricks parts are ordered after reading their header lines; see order-databricks-parts.ts. */
  needsHeaderOrdering: boolean;
}

const rollingPart = /^events_(\d+)_/;
const databricksPart = /^eventlog(-\d{4}-\d{2}-\d{2}--\d{2}-\d{2})?(\.gz|\.json\.gz)?$/;
const maxSearchDepth = 4;

/**
 * Finds the event log(s) at `path`: a single file (any codec, `.inprogress` included), a rolling
 * `eventlog_v2_*` directory, a Databricks `eventlog` + `eventlog-<date>.gz` directory, a parent
 * holding several of those (e.g. `<cluster>_<ip>/<spark_context_id>/`), or a `.zip` of any of them.
 */
export async function findEventLogs(
  path: string,
  limits: Partial<EventLogLimits> = {},
): Promise<EventLogUnit[]> {
  const kind = await diskTree.kind(path);
  if (kind === undefined) throw new NotFoundError('EVENTLOG_NOT_FOUND', `${path}: no such file or directory`);
  if (kind === 'file') {
    const source = await diskTree.source(path);
    if (detectCodec(await source.readHead(8)) === 'zip') {
      const { tree, root } = await zipTree(path, resolveLimits(limits));
      const units = await unitsIn(tree, root, path, 0);
      return units.map((unit) => ({ ...unit, path: unit.path ? `${path}!/${unit.path}` : path }));
    }
    return [singleFileUnit(path, source)];
  }
  return unitsIn(diskTree, path, path, 0);
}

/** Picks the one log at `path`, or the one named by `context` when there are several. */
export async function resolveEventLog(
  path: string,
  context?: string,
  limits: Partial<EventLogLimits> = {},
): Promise<EventLogUnit> {
  const units = await findEventLogs(path, limits);
  if (units.length === 0) {
    throw new ValidationError('EVENTLOG_NONE', `${path}: no Spark event log found in this directory`);
  }
  if (context !== undefined) {
    const chosen = units.find((unit) => unit.name === context || unit.path.endsWith(`/${context}`));
    if (!chosen) {
      throw new NotFoundError(
        'EVENTLOG_CONTEXT_NOT_FOUND',
        `${path}: no event log named ${context} (found: ${listNames(units)})`,
      );
    }
    return chosen;
  }
  if (units.length > 1) {
    throw new ValidationError(
      'EVENTLOG_SEVERAL',
      `${path} holds ${units.length} event logs; choose one with --context: ${listNames(units)}`,
      { details: { contexts: units.map((unit) => unit.name) } },
    );
  }
  return units[0]!;
}

function listNames(units: EventLogUnit[]): string {
  const names = units.slice(0, 20).map((unit) => unit.name);
  return units.length > 20 ? `${names.join(', ')}, … (${units.length} in all)` : names.join(', ');
}

function singleFileUnit(path: string, source: ByteSource): EventLogUnit {
  const name = baseName(path);
  return {
    name: name.replace(/\.inprogress$/, ''),
    path,
    layout: 'file',
    inProgress: name.endsWith('.inprogress'),
    parts: [source],
    needsHeaderOrdering: false,
  };
}

function baseName(path: string): string {
  return path.replace(/\/+$/, '').split('/').pop() ?? path;
}

function isIgnorable(name: string): boolean {
  return name.startsWith('.') || name.endsWith('.crc') || /^(SOURCES|README|LICENSE)/i.test(name);
}

async function unitsIn(
  tree: LogTree,
  directory: string,
  displayPath: string,
  depth: number,
): Promise<EventLogUnit[]> {
  const names = (await tree.list(directory)).filter((name) => !isIgnorable(name)).sort();
  const rolling = names.filter((name) => rollingPart.test(name));
  if (rolling.length > 0) return [await rollingUnit(tree, directory, displayPath, names, rolling)];
  const kinds = await Promise.all(names.map((name) => tree.kind(tree.join(directory, name))));
  const databricks = names.filter((name, index) => kinds[index] === 'file' && databricksPart.test(name));
  if (databricks.length > 0) {
    const parts = await Promise.all(databricks.map((name) => tree.source(tree.join(directory, name))));
    return [
      {
        name: baseName(displayPath) || 'eventlog',
        path: displayPath,
        layout: 'databricks',
        inProgress: false,
        parts,
        needsHeaderOrdering: true,
      },
    ];
  }
  const units: EventLogUnit[] = [];
  for (const [index, name] of names.entries()) {
    const childPath = tree.join(directory, name);
    const childDisplay = displayPath ? `${displayPath}/${name}` : name;
    if (kinds[index] === 'file') {
      const source = await tree.source(childPath);
      const codec = detectCodec(await source.readHead(8));
      if (codec === 'unknown' || codec === 'zip') continue;
      if (source.size === 0) continue;
      units.push({ ...singleFileUnit(childDisplay, source), path: childDisplay });
    } else if (kinds[index] === 'directory' && depth < maxSearchDepth) {
      units.push(...(await unitsIn(tree, childPath, childDisplay, depth + 1)));
    }
  }
  return units;
}

async function rollingUnit(
  tree: LogTree,
  directory: string,
  displayPath: string,
  names: string[],
  partNames: string[],
): Promise<EventLogUnit> {
  const ordered = [...partNames].sort((a, b) => partNumber(a) - partNumber(b));
  const status = names.find((name) => name.startsWith('appstatus_'));
  const inProgress = status
    ? status.endsWith('.inprogress')
    : ordered.some((name) => name.endsWith('.inprogress'));
  const parts = await Promise.all(ordered.map((name) => tree.source(tree.join(directory, name))));
  const name = baseName(displayPath).replace(/^eventlog_v2_/, '') || 'eventlog';
  return { name, path: displayPath, layout: 'rolling', inProgress, parts, needsHeaderOrdering: false };
}

function partNumber(name: string): number {
  return Number(rollingPart.exec(name)?.[1] ?? Number.MAX_SAFE_INTEGER);
}
