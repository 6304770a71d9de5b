import type { Readable } from 'node:stream';
import { ValidationError } from '@setpoint/foundation/errors';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import type { ByteSource } from '../codec/byte-source.js';
import { EventLogLimitError, type EventLogLimits } from '../eventlog-limits.js';

/** One entry of a zip archive, as its central directory describes it. */
export interface ZipEntryInfo {
  /** Path inside the archive (directories end with "/"). */
  name: string;
  /** Position in the central directory. */
  index: number;
  storedSize: number;
}

/**
 * Zip archives are read from their central directory and each entry is inflated as a stream when
 * it is read (yauzl, native zlib), so reading an archive holds one chunk of one entry at a time
 * whatever it expands to. Entry sizes are checked against the directory while streaming.
 */
async function openZip(zipPath: string): Promise<ZipFile> {
  try {
    return await yauzl.openPromise(zipPath, {
      lazyEntries: true,
      autoClose: false,
      validateEntrySizes: true,
      strictFileNames: false,
    });
  } catch (error) {
    throw badZip(zipPath, error);
  }
}

function badZip(zipPath: string, error: unknown): ValidationError {
  const reason = error instanceof Error ? error.message : String(error);
  return new ValidationError('EVENTLOG_BAD_ZIP', `${zipPath}: not a readable zip archive (${reason})`);
}

/** Calls `visit` for each entry in directory order until it returns true; false when none did. */
async function walkEntries(
  zip: ZipFile,
  zipPath: string,
  visit: (entry: Entry, index: number) => boolean,
): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    let index = 0;
    const onEntry = (entry: Entry) => {
      try {
        if (visit(entry, index++)) {
          cleanup();
          resolve(true);
        } else zip.readEntry();
      } catch (error) {
        cleanup();
        reject(error);
      }
    };
    const onEnd = () => {
      cleanup();
      resolve(false);
    };
    const onError = (error: unknown) => {
      cleanup();
      reject(badZip(zipPath, error));
    };
    const cleanup = () => {
      zip.off('entry', onEntry);
      zip.off('end', onEnd);
      zip.off('error', onError);
    };
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}

/**
 * The archive's entries. Refused up front: more than maxZipEntries entries, or an entry that
 * declares more than maxCompressionRatio × its stored size (yauzl then holds every entry to its
 * declared size while it streams).
 */
export async function listZipEntries(
  zipPath: string,
  limits: Pick<EventLogLimits, 'maxZipEntries' | 'maxCompressionRatio' | 'compressionRatioFloorBytes'>,
): Promise<ZipEntryInfo[]> {
  const maxEntries = limits.maxZipEntries;
  const zip = await openZip(zipPath);
  try {
    if (zip.entryCount > maxEntries) {
      throw new EventLogLimitError(
        'EVENTLOG_ZIP_TOO_MANY_ENTRIES',
        'maxZipEntries',
        maxEntries,
        `${zipPath}: the zip archive has ${zip.entryCount} entries, more than ${maxEntries} (limit maxZipEntries)`,
      );
    }
    const entries: ZipEntryInfo[] = [];
    await walkEntries(zip, zipPath, (entry, index) => {
      const declared = entry.uncompressedSize;
      if (
        declared > limits.compressionRatioFloorBytes &&
        declared > limits.maxCompressionRatio * Math.max(1, entry.compressedSize)
      ) {
        throw new EventLogLimitError(
          'EVENTLOG_COMPRESSION_RATIO',
          'maxCompressionRatio',
          limits.maxCompressionRatio,
          `${zipPath}: entry ${entry.fileName} expands more than ${limits.maxCompressionRatio}× its stored size (limit maxCompressionRatio)`,
        );
      }
      entries.push({ name: entry.fileName, index, storedSize: entry.compressedSize });
      return false;
    });
    return entries;
  } finally {
    zip.close();
  }
}

/** One entry as a ByteSource; every read reopens the archive and inflates the entry as a stream. */
export function zipEntrySource(zipPath: string, displayName: string, entry: ZipEntryInfo): ByteSource {
  const stream = async function* (): AsyncGenerator<Uint8Array> {
    const zip = await openZip(zipPath);
    let content: Readable | undefined;
    try {
      let found: Entry | undefined;
      await walkEntries(zip, zipPath, (candidate, index) => {
        if (index !== entry.index) return false;
        found = candidate;
        return true;
      });
      if (!found) throw badZip(zipPath, new Error(`entry ${entry.name} disappeared`));
      if (found.isEncrypted()) throw badZip(zipPath, new Error(`entry ${entry.name} is encrypted`));
      try {
        content = await zip.openReadStreamPromise(found);
      } catch (error) {
        throw badZip(zipPath, error);
      }
      try {
        for await (const chunk of content) yield chunk as Buffer;
      } catch (error) {
        throw badZip(zipPath, error);
      }
    } finally {
      content?.destroy();
      zip.close();
    }
  };
  return {
    name: displayName,
    size: entry.storedSize,
    async readHead(length) {
      const pieces: Buffer[] = [];
      let total = 0;
      for await (const chunk of stream()) {
        pieces.push(Buffer.from(chunk));
        total += chunk.length;
        if (total >= length) break;
      }
      return Buffer.concat(pieces).subarray(0, length);
    },
    open: stream,
  };
}
