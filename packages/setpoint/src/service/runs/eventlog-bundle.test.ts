import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { bundleFileName, extractZip } from './eventlog-bundle.js';

describe('names in an event-log bundle', () => {
  it('keeps a file its own name so a Databricks rolled set stays recognisable', () => {
    expect(bundleFileName('eventlog-2024-02-13--19-00.gz', new Set(['eventlog']), 'x')).toBe(
      'eventlog-2024-02-13--19-00.gz',
    );
  });

  it('numbers a name only when an earlier file took it, and strips paths and odd characters', () => {
    expect(bundleFileName('eventlog', new Set(['eventlog']), 'x')).toBe('001-eventlog');
    expect(bundleFileName('eventlog', new Set(['eventlog', '001-eventlog']), 'x')).toBe('002-eventlog');
    expect(bundleFileName('../../etc/pass wd', new Set(), 'x')).toBe('pass_wd');
    expect(bundleFileName('', new Set(), 'fallback')).toBe('fallback');
  });
});

/** A consumer that takes a chunk only when the test lets it. */
class GatedConsumer extends Writable {
  received = 0;
  readonly #waiting: Array<() => void> = [];

  constructor() {
    super({ highWaterMark: 64 * 1024 });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.#waiting.push(() => {
      this.received += chunk.length;
      callback();
    });
  }

  takeOne(): void {
    this.#waiting.shift()?.();
  }

  /** The writer stopped handing over data: it waits for 'drain', or it has handed over everything. */
  get writerIdle(): boolean {
    return this.listenerCount('drain') > 0 || this.writableEnded;
  }
}

describe('zip extraction', () => {
  it('pauses inflation while the consumer is slow instead of buffering the expanded entry', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'setpoint-zip-'));
    const entryBytes = 64 * 1024 * 1024;
    // 64 MiB of one repeated line: ~64 KiB compressed, the shape of a zip bomb within the limit
    const zipPath = path.join(directory, 'upload.zip');
    writeFileSync(zipPath, zipSync({ eventlog: new Uint8Array(entryBytes).fill(0x41) }));
    const consumer = new GatedConsumer();
    let settled = false;
    const extraction = extractZip(zipPath, directory, 2 * entryBytes, new Set(), {
      open: () => consumer,
    }).finally(() => {
      settled = true;
    });
    // the consumer takes nothing while the writer is still handing data over, then one chunk per turn
    // of the event loop: what it holds untaken is what extraction pushed without waiting for it
    let maxBuffered = 0;
    while (!settled) {
      await new Promise((resolve) => setImmediate(resolve));
      if (!consumer.writerIdle) continue;
      maxBuffered = Math.max(maxBuffered, consumer.writableLength);
      consumer.takeOne();
    }
    const files = await extraction;
    expect(files).toEqual([{ name: 'eventlog', path: path.join(directory, 'eventlog'), bytes: entryBytes }]);
    expect(consumer.received).toBe(entryBytes);
    // what one 8 KiB read can expand to (deflate's ~1,032:1) plus the consumer's own buffer, not 64 MiB
    expect(maxBuffered).toBeLessThan(10 * 1024 * 1024);
  });

  it('still refuses a zip that expands beyond the limit', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'setpoint-zip-'));
    const zipPath = path.join(directory, 'bomb.zip');
    writeFileSync(zipPath, zipSync({ eventlog: new Uint8Array(8 * 1024 * 1024) }));
    await expect(extractZip(zipPath, directory, 1024 * 1024)).rejects.toMatchObject({
      code: 'UPLOAD_TOO_LARGE',
    });
    // refused from the declared size, before anything was inflated; the zip is gone too
    expect(readdirSync(directory)).toEqual([]);
  });

  it('refuses a file that starts like a zip but is not one, as a bad zip, and removes it', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'setpoint-zip-'));
    const zipPath = path.join(directory, 'broken.zip');
    const archive = Buffer.from(zipSync({ eventlog: new Uint8Array(4096).fill(0x41) }));
    writeFileSync(zipPath, archive.subarray(0, archive.length - 30)); // the central directory cut short
    await expect(extractZip(zipPath, directory, 1024 * 1024)).rejects.toMatchObject({
      code: 'EVENTLOG_BAD_ZIP',
    });
    expect(existsSync(zipPath)).toBe(false);
  });

  it('writes every entry of a zip, flattened, under names that stay unique', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'setpoint-zip-'));
    const zipPath = path.join(directory, 'logs.zip');
    writeFileSync(
      zipPath,
      zipSync({ 'a/eventlog': strToU8('first\n'), 'b/eventlog': strToU8('second\n'), 'c/': {} }),
    );
    const files = await extractZip(zipPath, directory, 1024);
    expect(files.map(({ name, bytes }) => ({ name, bytes }))).toEqual([
      { name: 'eventlog', bytes: 6 },
      { name: '001-eventlog', bytes: 7 },
    ]);
    expect(readFileSync(path.join(directory, '001-eventlog'), 'utf8')).toBe('second\n');
  });
});
