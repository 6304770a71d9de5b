import { createWriteStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ValidationError } from '@setpoint/foundation/errors';
import { openZipArchive } from '../../eventlog/layout/zip-entries.js';

/** A file name safe to keep inside a blob bundle. */
export function safeFileName(name: string, fallback: string): string {
  const base = path
    .basename(name.replaceAll('\\', '/'))
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\.+/, '');
  return base.length > 0 ? base.slice(0, 120) : fallback;
}

/**
 * The name a file keeps in a bundle: its own (so a Databricks `eventlog-<date>.gz` + `eventlog` set is
 * still recognised as one rolled log), numbered only when an earlier file already took it.
 */
export function bundleFileName(name: string, taken: ReadonlySet<string>, fallback: string): string {
  const safe = safeFileName(name, fallback);
  if (!taken.has(safe)) return safe;
  for (let index = 1; ; index += 1) {
    const numbered = `${String(index).padStart(3, '0')}-${safe}`;
    if (!taken.has(numbered)) return numbered;
  }
}

export async function isZipFile(filePath: string): Promise<boolean> {
  const handle = await open(filePath, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4), 0, 4, 0);
    return bytesRead === 4 && buffer.readUInt32LE(0) === 0x04034b50;
  } finally {
    await handle.close();
  }
}

export interface ExtractZipOptions {
  maxEntries?: number;
  /** Where an entry is written (a file by default; tests pass a slow consumer). */
  open?: (target: string) => Writable;
}

/**
 * Extracts a zip of event-log files into `directory` (flattened, directories skipped), refusing it once
 * the uncompressed total passes `maxBytes` (zip bombs: declared sizes are checked before an entry is
 * inflated, and the reader holds each entry to its declared size) or it holds more than `maxEntries`
 * files. Each entry streams to its file through the archive reader of `eventlog` with backpressure: a slow
 * disk (or consumer) pauses inflation instead of buffering its output, so memory stays bounded and the
 * event loop keeps answering. Returns the files written; the zip itself is removed.
 */
export async function extractZip(
  zipPath: string,
  directory: string,
  maxBytes: number,
  taken: Set<string> = new Set(),
  options: ExtractZipOptions = {},
): Promise<Array<{ name: string; path: string; bytes: number }>> {
  const maxEntries = options.maxEntries ?? Number.POSITIVE_INFINITY;
  const openOutput = options.open ?? ((target: string) => createWriteStream(target));
  const files: Array<{ name: string; path: string; bytes: number }> = [];
  const tooLarge = () =>
    new ValidationError('UPLOAD_TOO_LARGE', `zip expands beyond the ${maxBytes}-byte limit`);
  let total = 0;
  try {
    const zip = await openZipArchive(zipPath);
    try {
      for await (const entry of zip.entries()) {
        if (entry.name.endsWith('/')) continue;
        if (files.length >= maxEntries) {
          throw new ValidationError(
            'UPLOAD_TOO_MANY_FILES',
            `the zip holds more than ${maxEntries} files (the limit of files per upload)`,
          );
        }
        if (total + entry.declaredSize > maxBytes) throw tooLarge();
        const name = bundleFileName(entry.name, taken, `part-${files.length}`);
        taken.add(name);
        const record = { name, path: path.join(directory, name), bytes: 0 };
        files.push(record);
        const counted = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            record.bytes += chunk.length;
            total += chunk.length;
            callback(total > maxBytes ? tooLarge() : null, chunk);
          },
        });
        await pipeline(Readable.from(entry.open()), counted, openOutput(record.path));
      }
    } finally {
      zip.close();
    }
  } finally {
    await rm(zipPath, { force: true });
  }
  if (files.length === 0) throw new ValidationError('EVENTLOG_ZIP_EMPTY', 'the uploaded zip holds no files');
  return files;
}
