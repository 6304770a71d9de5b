import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';

/** One stored file of an event log: on disk, or an entry of a zip archive (layout/zip-entries.ts). */
export interface ByteSource {
  /** A display name (path, or `archive.zip!/entry`). */
  readonly name: string;
  /** Stored (possibly compressed) size in bytes. */
  readonly size: number;
  readHead(length: number): Promise<Uint8Array>;
  open(): AsyncIterable<Uint8Array>;
}

const readChunkBytes = 1 << 20;

export function fileByteSource(path: string, size: number): ByteSource {
  return {
    name: path,
    size,
    async readHead(length) {
      const handle = await open(path, 'r');
      try {
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
    open: () => createReadStream(path, { highWaterMark: readChunkBytes }),
  };
}
