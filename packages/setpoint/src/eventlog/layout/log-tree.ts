import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { NotFoundError, ValidationError } from '@setpoint/foundation/errors';
import { unzipSync } from 'fflate';
import { type ByteSource, fileByteSource, memoryByteSource } from '../codec/byte-source.js';

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
 * A zip archive held in memory, entries decompressed on first use. Zip archives of event logs are
 * small in practice (the largest real logs are shipped as single compressed files instead).
 */
export async function zipTree(zipPath: string): Promise<{ tree: LogTree; root: string }> {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(await readFile(zipPath));
  } catch (error) {
    throw new ValidationError(
      'EVENTLOG_BAD_ZIP',
      `${zipPath}: not a readable zip archive (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const files = new Map<string, Uint8Array>();
  const directories = new Map<string, Set<string>>([['', new Set()]]);
  for (const [rawName, bytes] of Object.entries(entries)) {
    const name = rawName.replace(/\/+$/, '');
    if (!name || name.split('/').some((part) => part === '__MACOSX' || part.startsWith('._'))) continue;
    const isDirectory = rawName.endsWith('/');
    if (!isDirectory) files.set(name, bytes);
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
      const bytes = files.get(path);
      if (!bytes) throw new NotFoundError('EVENTLOG_NOT_FOUND', `${label}: no entry ${path}`);
      return memoryByteSource(`${label}!/${path}`, bytes);
    },
    join: (directory, name) => (directory ? `${directory}/${name}` : name),
  };
  return { tree, root: '' };
}
