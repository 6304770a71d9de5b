import type { DatabricksClient } from '../api/client.js';

export interface LogEntry {
  path: string;
  name: string;
  isDir: boolean;
  size: number;
  modifiedAt: number | undefined;
}

/** Read access to a cluster-log destination: DBFS, a Unity Catalog volume, or S3. */
export interface LogStore {
  list(path: string): Promise<LogEntry[]>;
  read(path: string): AsyncIterable<Buffer>;
}

export function joinLogPath(base: string, ...parts: string[]): string {
  return [base.replace(/\/+$/, ''), ...parts.map((part) => part.replace(/^\/+|\/+$/g, ''))].join('/');
}

function baseName(path: string): string {
  return path.replace(/\/+$/, '').split('/').pop() ?? path;
}

/** DBFS paths are accepted as `dbfs:/x` or `/x`. */
export function dbfsLogStore(client: Pick<DatabricksClient, 'dbfsList' | 'dbfsRead'>): LogStore {
  return {
    async list(path) {
      const files = await client.dbfsList(path);
      return files.map((file) => ({
        path: file.path,
        name: baseName(file.path),
        isDir: file.is_dir,
        size: file.file_size,
        modifiedAt: file.modification_time,
      }));
    },
    read: (path) => client.dbfsRead(path),
  };
}

export function volumesLogStore(client: Pick<DatabricksClient, 'listDirectory' | 'downloadFile'>): LogStore {
  return {
    async list(path) {
      const entries: LogEntry[] = [];
      for await (const entry of client.listDirectory(path)) {
        entries.push({
          path: entry.path,
          name: entry.name ?? baseName(entry.path),
          isDir: entry.is_directory,
          size: entry.file_size ?? 0,
          modifiedAt: entry.last_modified,
        });
      }
      return entries;
    },
    async *read(path) {
      yield await client.downloadFile(path);
    },
  };
}
