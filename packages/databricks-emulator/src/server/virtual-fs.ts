import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ValidationError } from '@setpoint/foundation/errors';
import { alreadyExists, invalidParameter, resourceMissing } from './api-errors.js';

export interface FileEntry {
  path: string;
  isDir: boolean;
  size: number;
  modifiedMs: number;
}

/**
 * One in-memory file tree behind both DBFS (`dbfs:/…` or `/…`) and the Files API (`/Volumes/…`).
 * Directories exist implicitly above every file and explicitly after mkdirs.
 */
export class VirtualFs {
  /** @param mirrorDirectory when set, every written file is also written below it on the real disk. */
  constructor(private readonly mirrorDirectory?: string) {}

  private readonly files = new Map<string, { data: Uint8Array; modifiedMs: number }>();
  private readonly dirs = new Map<string, number>([['/', 0]]);

  static normalize(rawPath: string): string {
    let path = rawPath.trim();
    if (path.startsWith('dbfs:')) path = path.slice('dbfs:'.length);
    if (!path.startsWith('/')) throw invalidParameter(`Path must be absolute: ${rawPath}`);
    path = path.replace(/\/+/g, '/');
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    return path;
  }

  write(rawPath: string, data: Uint8Array, modifiedMs: number): void {
    const path = VirtualFs.normalize(rawPath);
    if (this.dirs.has(path)) throw invalidParameter(`${path} is a directory`);
    this.files.set(path, { data, modifiedMs });
    this.mkdirs(parentOf(path), modifiedMs);
    if (this.mirrorDirectory) {
      const target = join(this.mirrorDirectory, path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, data);
    }
  }

  /**
   * Deletes every file last modified before `cutoffMs`, as a lifecycle rule on a log bucket would;
   * returns how many. Directories stay.
   */
  expireFilesBefore(cutoffMs: number): number {
    let expired = 0;
    for (const [path, file] of this.files) {
      if (file.modifiedMs >= cutoffMs) continue;
      this.files.delete(path);
      expired += 1;
    }
    return expired;
  }

  append(rawPath: string, data: Uint8Array, modifiedMs: number): void {
    const path = VirtualFs.normalize(rawPath);
    const existing = this.files.get(path);
    const merged = new Uint8Array((existing?.data.length ?? 0) + data.length);
    if (existing) merged.set(existing.data, 0);
    merged.set(data, existing?.data.length ?? 0);
    this.write(path, merged, modifiedMs);
  }

  mkdirs(rawPath: string, modifiedMs: number): void {
    let path = VirtualFs.normalize(rawPath);
    if (this.files.has(path))
      throw alreadyExists(`A file or directory already exists at the input path ${path}.`);
    if (this.mirrorDirectory && !this.dirs.has(path))
      mkdirSync(join(this.mirrorDirectory, path), { recursive: true });
    while (!this.dirs.has(path)) {
      this.dirs.set(path, modifiedMs);
      path = parentOf(path);
    }
  }

  stat(rawPath: string): FileEntry | undefined {
    const path = VirtualFs.normalize(rawPath);
    const file = this.files.get(path);
    if (file) return { path, isDir: false, size: file.data.length, modifiedMs: file.modifiedMs };
    const dir = this.dirs.get(path);
    return dir === undefined ? undefined : { path, isDir: true, size: 0, modifiedMs: dir };
  }

  statOrThrow(rawPath: string): FileEntry {
    const entry = this.stat(rawPath);
    if (!entry) throw resourceMissing(`No file or directory exists on path ${VirtualFs.normalize(rawPath)}.`);
    return entry;
  }

  read(rawPath: string): Uint8Array {
    const path = VirtualFs.normalize(rawPath);
    const file = this.files.get(path);
    if (!file) {
      if (this.dirs.has(path)) throw invalidParameter(`Cannot read ${path}: it is a directory.`);
      throw resourceMissing(`No file or directory exists on path ${path}.`);
    }
    return file.data;
  }

  /** Direct children, sorted by path. */
  list(rawPath: string): FileEntry[] {
    const path = VirtualFs.normalize(rawPath);
    const prefix = path === '/' ? '/' : `${path}/`;
    const entries: FileEntry[] = [];
    for (const [dir, modifiedMs] of this.dirs) {
      if (dir !== path && dir.startsWith(prefix) && !dir.slice(prefix.length).includes('/')) {
        entries.push({ path: dir, isDir: true, size: 0, modifiedMs });
      }
    }
    for (const [file, content] of this.files) {
      if (file.startsWith(prefix) && !file.slice(prefix.length).includes('/')) {
        entries.push({ path: file, isDir: false, size: content.data.length, modifiedMs: content.modifiedMs });
      }
    }
    return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  delete(rawPath: string, recursive: boolean): void {
    const path = VirtualFs.normalize(rawPath);
    if (this.files.delete(path)) return;
    if (!this.dirs.has(path)) return;
    const prefix = `${path}/`;
    const hasChildren = [...this.files.keys(), ...this.dirs.keys()].some((other) => other.startsWith(prefix));
    if (hasChildren && !recursive) {
      throw new ValidationError(
        'DIRECTORY_NOT_EMPTY',
        `Could not delete ${path}: the directory is not empty.`,
      );
    }
    for (const file of [...this.files.keys()]) if (file.startsWith(prefix)) this.files.delete(file);
    for (const dir of [...this.dirs.keys()]) if (dir.startsWith(prefix)) this.dirs.delete(dir);
    if (path !== '/') this.dirs.delete(path);
  }
}

function parentOf(path: string): string {
  const index = path.lastIndexOf('/');
  return index <= 0 ? '/' : path.slice(0, index);
}
