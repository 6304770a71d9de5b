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

/** An entry met while walking an archive: what the directory declares, and its content as a stream. */
export interface ZipArchiveEntry extends ZipEntryInfo {
  /** The size the directory declares once inflated; the stream fails when the data overruns it. */
  declaredSize: number;
  /** The inflated content; a failure of the archive while reading is EVENTLOG_BAD_ZIP. */
  open(): AsyncGenerator<Uint8Array>;
}

/**
 * A zip archive read from its central directory, each entry inflated as a stream when it is read (yauzl,
 * native zlib), so reading an archive holds one chunk of one entry at a time whatever it expands to.
 * Entry sizes are checked against the directory while streaming. The one zip reader of Setpoint: the
 * event-log layouts and the upload and ingest extraction both read through it.
 */
export interface ZipArchive {
  /** Entries in the central directory, known before any is read. */
  entryCount: number;
  /** The entries in directory order; stop early by leaving the loop. */
  entries(): AsyncGenerator<ZipArchiveEntry>;
  close(): void;
}

export async function openZipArchive(zipPath: string): Promise<ZipArchive> {
  let zip: ZipFile;
  try {
    zip = await yauzl.openPromise(zipPath, {
      lazyEntries: true,
      autoClose: false,
      validateEntrySizes: true,
      strictFileNames: false,
    });
  } catch (error) {
    throw badZip(zipPath, error);
  }
  return {
    entryCount: zip.entryCount,
    entries: () => entriesOf(zip, zipPath),
    close: () => zip.close(),
  };
}

function badZip(zipPath: string, error: unknown): ValidationError {
  const reason = error instanceof Error ? error.message : String(error);
  return new ValidationError('EVENTLOG_BAD_ZIP', `${zipPath}: not a readable zip archive (${reason})`);
}

/** The next entry of the directory, or undefined at its end. */
function nextEntry(zip: ZipFile, zipPath: string): Promise<Entry | undefined> {
  return new Promise((resolve, reject) => {
    const onEntry = (entry: Entry) => {
      cleanup();
      resolve(entry);
    };
    const onEnd = () => {
      cleanup();
      resolve(undefined);
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

async function* entriesOf(zip: ZipFile, zipPath: string): AsyncGenerator<ZipArchiveEntry> {
  for (let index = 0; ; index += 1) {
    const entry = await nextEntry(zip, zipPath);
    if (!entry) return;
    yield {
      name: entry.fileName,
      index,
      storedSize: entry.compressedSize,
      declaredSize: entry.uncompressedSize,
      open: () => contentOf(zip, zipPath, entry),
    };
  }
}

async function* contentOf(zip: ZipFile, zipPath: string, entry: Entry): AsyncGenerator<Uint8Array> {
  if (entry.isEncrypted()) throw badZip(zipPath, new Error(`entry ${entry.fileName} is encrypted`));
  let content: Readable;
  try {
    content = await zip.openReadStreamPromise(entry);
  } catch (error) {
    throw badZip(zipPath, error);
  }
  try {
    for await (const chunk of content) yield chunk as Buffer;
  } catch (error) {
    // corrupt data, or more bytes than the directory declares (validateEntrySizes)
    throw badZip(zipPath, error);
  } finally {
    content.destroy();
  }
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
  const zip = await openZipArchive(zipPath);
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
    for await (const entry of zip.entries()) {
      const declared = entry.declaredSize;
      if (
        declared > limits.compressionRatioFloorBytes &&
        declared > limits.maxCompressionRatio * Math.max(1, entry.storedSize)
      ) {
        throw new EventLogLimitError(
          'EVENTLOG_COMPRESSION_RATIO',
          'maxCompressionRatio',
          limits.maxCompressionRatio,
          `${zipPath}: entry ${entry.name} expands more than ${limits.maxCompressionRatio}× its stored size (limit maxCompressionRatio)`,
        );
      }
      entries.push({ name: entry.name, index: entry.index, storedSize: entry.storedSize });
    }
    return entries;
  } finally {
    zip.close();
  }
}

/** One entry as a ByteSource; every read reopens the archive and inflates the entry as a stream. */
export function zipEntrySource(zipPath: string, displayName: string, entry: ZipEntryInfo): ByteSource {
  const stream = async function* (): AsyncGenerator<Uint8Array> {
    const zip = await openZipArchive(zipPath);
    try {
      let found: ZipArchiveEntry | undefined;
      for await (const candidate of zip.entries()) {
        if (candidate.index !== entry.index) continue;
        found = candidate;
        break;
      }
      if (!found) throw badZip(zipPath, new Error(`entry ${entry.name} disappeared`));
      yield* found.open();
    } finally {
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
