import { createReadStream, createWriteStream } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { ValidationError } from '@setpoint/foundation/errors';
import { Unzip, UnzipInflate } from 'fflate';

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

/**
 * Compressed bytes handed to the inflater at once. Deflate expands at most ~1,032:1, so one push produces
 * at most ~8 MiB and takes a few milliseconds of the event loop, however hostile the zip.
 */
const zipReadChunkBytes = 8 * 1024;

/** Resolves once `out` accepts writes again (or is finished or closed: nothing more will drain). */
function drained(out: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('finish', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('finish', done);
    out.on('close', done);
  });
}

export interface ExtractZipOptions {
  maxEntries?: number;
  /** Where an entry is written (a file by default; tests pass a slow consumer). */
  open?: (target: string) => Writable;
}

/**
 * Extracts a zip of event-log files into `directory` (flattened, directories skipped), stopping once
 * the uncompressed total passes `maxBytes` (zip bombs) or it holds more than `maxEntries` files.
 * Reads the zip in small chunks and, whenever an output stream is full, waits for it to drain before
 * inflating more: memory stays bounded and the event loop keeps answering. Returns the files written.
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
  const writes: Promise<void>[] = [];
  const full: Writable[] = [];
  let total = 0;
  let failure: Error | undefined;
  const unzip = new Unzip((entry) => {
    if (entry.name.endsWith('/') || failure) return;
    if (files.length >= maxEntries) {
      failure = new ValidationError(
        'UPLOAD_TOO_MANY_FILES',
        `the zip holds more than ${maxEntries} files (the limit of files per upload)`,
      );
      return;
    }
    const name = bundleFileName(entry.name, taken, `part-${files.length}`);
    taken.add(name);
    const target = path.join(directory, name);
    const record = { name, path: target, bytes: 0 };
    files.push(record);
    const out = openOutput(target);
    writes.push(
      new Promise((resolve, reject) => {
        out.on('finish', resolve);
        out.on('error', reject);
      }),
    );
    entry.ondata = (error, chunk, final) => {
      if (error) failure ??= error;
      record.bytes += chunk.length;
      total += chunk.length;
      if (total > maxBytes)
        failure ??= new ValidationError('UPLOAD_TOO_LARGE', `zip expands beyond the ${maxBytes}-byte limit`);
      if (!failure && !out.write(chunk)) full.push(out);
      if (final || failure) out.end();
    };
    entry.start();
  });
  unzip.register(UnzipInflate);
  for await (const chunk of createReadStream(zipPath, { highWaterMark: zipReadChunkBytes })) {
    unzip.push(chunk as Uint8Array);
    if (failure) break;
    // backpressure: a slow disk (or consumer) pauses inflation instead of buffering its output
    if (full.length > 0) await Promise.all(full.splice(0).map(drained));
  }
  if (!failure) unzip.push(new Uint8Array(0), true);
  await Promise.all(writes);
  await unlink(zipPath);
  if (failure) throw failure;
  if (files.length === 0) throw new ValidationError('EVENTLOG_ZIP_EMPTY', 'the uploaded zip holds no files');
  return files;
}
