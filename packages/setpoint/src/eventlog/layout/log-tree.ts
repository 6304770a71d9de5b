import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { NotFoundError } from '@setpoint/foundation/errors';
import { type ByteSource, fileByteSource } from '../codec/byte-source.js';
import type { EventLogLimits } from '../eventlog-limits.js';
import { listZipEntries, type ZipEntryInfo, zipEntrySource } from './zip-entries.js';

export type EntryKind = 'file' | 'directory';

/** The little a layout resolver needs from storage: a real directory tree or a zip archive's. */
export interface LogTree {
  kind(path: string): Promise<EntryKind | undefined>;
  list(directory: string): Promise<string[]>;
  source(path: string): Promise<ByteSource>;
  join(directory: string, name: string): string;
}

export const diskTree: LogTree = {
  async kind(path) {
    try {
      const info = await stat(path);
      return info.isDirectory() ? 'directory' : info.isFile() ? 'file' : undefined;
    } catch {
      return undefined;
    }
  },
  list: (directory) => readdir(directory),
  async source(path) {
    const info = await stat(path);
    return fileByteSource(path, info.size);
  },
  join,
};

/**
 * A zip archive read from its central directory; entries are inflated as streams when read
 * (zip-entries.ts), so memory does not grow with what the archive expands to.
 */
export async function zipTree(
  zipPath: string,
  limits: EventLogLimits,
): Promise<{ tree: LogTree; root: string }> {
  const entries = await listZipEntries(zipPath, limits);
  const files = new Map<string, ZipEntryInfo>();
  const directories = new Map<string, Set<string>>([['', new Set()]]);
  for (const entry of entries) {
    const rawName = entry.name;
    const name = rawName.replace(/\/+$/, '');
    if (!name || name.split('/').some((part) => part === '__MACOSX' || part.startsWith('._'))) continue;
    const isDirectory = rawName.endsWith('/');
    if (!isDirectory) files.set(name, entry);
    const parts = name.split('/');
    for (let depth = 0; depth < parts.length; depth++) {
      const parent = parts.slice(0, depth).join('/');
      const child = parts[depth]!;
      if (!directories.has(parent)) directories.set(parent, new Set());
      directories.get(parent)!.add(child);
      const self = parts.slice(0, depth + 1).join('/');
      if ((depth < parts.length - 1 || isDirectory) && !directories.has(self))
        directories.set(self, new Set());
    }
  }
  const label = basename(zipPath);
  const tree: LogTree = {
    async kind(path) {
      if (files.has(path)) return 'file';
      return directories.has(path) ? 'directory' : undefined;
    },
    async list(directory) {
      return [...(directories.get(directory) ?? [])];
    },
    async source(path) {
      const entry = files.get(path);
      if (!entry) throw new NotFoundError('EVENTLOG_NOT_FOUND', `${label}: no entry ${path}`);
      return zipEntrySource(zipPath, `${label}!/${path}`, entry);
    },
    join: (directory, name) => (directory ? `${directory}/${name}` : name),
  };
  return { tree, root: '' };
}
