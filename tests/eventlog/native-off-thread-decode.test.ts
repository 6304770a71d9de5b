/**
 * Large zstd logs (through the `zstd -dc` child) and lz4 and snappy logs (through the native block
 * decoders) decode in a worker thread, so the parsing thread only splits lines. Forced onto that path
 * with offThreadMinBytes: 0, a multi-MiB log must decode to exactly the plain log's bytes, damaged
 * and truncated streams must give the inline decoders' errors, and a reader that stops early must
 * leave no `zstd` child behind.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { DecodeOptions } from 'setpoint/eventlog/codec/decode-source';
import { nativeBlockDecoders } from 'setpoint/eventlog/codec/native-block-decoders';
import { decodeOffThread, type ThreadCodec } from 'setpoint/eventlog/codec/off-thread';
import { findZstdBinary } from 'setpoint/eventlog/codec/zstd-stream';
import { decodeSource, readEventLog } from 'setpoint/eventlog/index';
import { describe, expect, it } from 'vitest';
import { errorOf } from './support/error-of.js';
import { generatedSource, generatedUnit } from './support/generated-log.js';

const generated = join(import.meta.dirname, '../fixtures/eventlog/generated');
const plain = gunzipSync(readFileSync(join(generated, 'local-1430917381534.gz')));
/** 40 copies of the 138 kB log: 5.5 MB decoded, several of the thread's 1 MiB chunks. */
const copies = 40;

const cases: ReadonlyArray<{ codec: ThreadCodec; options: DecodeOptions; available: boolean }> = [
  { codec: 'zstd', options: { zstdDecoder: 'binary' }, available: findZstdBinary() !== null },
  { codec: 'snappy', options: { blockDecoder: 'native' }, available: nativeBlockDecoders().available },
  { codec: 'lz4', options: { blockDecoder: 'native' }, available: nativeBlockDecoders().available },
];

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const pieces: Uint8Array[] = [];
  for await (const chunk of chunks) pieces.push(chunk);
  return Buffer.concat(pieces);
}

/** The message a decode ends with, or 'no error'. */
async function failureOf(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  try {
    await collect(chunks);
    return 'no error';
  } catch (error) {
    return error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error);
  }
}

async function* single(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/** This process's `zstd` children, zombies included (a child nobody reaped shows as `Z`). */
function zstdChildren(): string[] {
  // ps exits with 1 when there are none, so its status is not checked; a missing ps fails below.
  const listing = spawnSync('ps', ['-o', 'pid=,stat=,comm=', '--ppid', String(process.pid)], {
    encoding: 'utf8',
  });
  if (listing.error) throw listing.error;
  return listing.stdout.split('\n').filter((line) => /\bzstd\b/.test(line));
}

for (const { codec, options, available } of cases) {
  describe.runIf(available)(`${codec} decoded in a worker thread with the native decoder`, () => {
    const stored = readFileSync(join(generated, `local-1430917381534.${codec}`));

    it('a multi-MiB log gives exactly the plain log’s bytes', async () => {
      // Concatenated zstd frames, snappy-java streams and lz4-java streams are each one valid stream.
      const source = generatedSource(`big.${codec}`, () => Array.from({ length: copies }, () => stored));
      const { chunks } = await decodeSource(source, { ...options, offThreadMinBytes: 0 });
      const decoded = await collect(chunks);
      expect(decoded.length).toBe(plain.length * copies);
      expect(decoded.equals(Buffer.concat(Array.from({ length: copies }, () => plain)))).toBe(true);
    });

    it('gives the inline decoder’s errors on damaged and truncated streams', async () => {
      const inline = { ...options, offThreadMinBytes: Number.POSITIVE_INFINITY };
      const cut = stored.subarray(0, stored.length - 100);
      const decodeInline = async (bytes: Uint8Array) =>
        failureOf(
          (
            await decodeSource(
              generatedSource(`bad.${codec}`, () => [bytes]),
              inline,
            )
          ).chunks,
        );
      // Damage inside the first frame or block, past the stream header, at the first place the
      // decoder notices it (some bytes are literals, whose damage only changes the text).
      let damaged: Buffer | undefined;
      for (let offset = 24; offset < 200 && !damaged; offset += 7) {
        const candidate = Buffer.from(stored);
        candidate.fill(0xff, offset, offset + 4);
        if ((await decodeInline(candidate)) !== 'no error') damaged = candidate;
      }
      expect(damaged).toBeDefined();
      for (const bytes of [damaged!, cut]) {
        const expected = await decodeInline(bytes);
        expect(expected).not.toBe('no error');
        const inThread = await failureOf(decodeOffThread(codec, single(bytes), `bad.${codec}`, 'native'));
        expect(inThread).toBe(expected);
      }
      const truncated = await errorOf(
        readEventLog(
          generatedUnit(`cut.${codec}`, () => [cut]),
          { ...options, offThreadMinBytes: 0 },
        ),
      );
      expect(truncated.code).toBe('EVENTLOG_TRUNCATED');
    });
  });
}

describe.runIf(findZstdBinary() !== null)('a zstd read stopped early', () => {
  it('ends and reaps the zstd child its thread ran', async () => {
    const stored = readFileSync(join(generated, 'local-1430917381534.zstd'));
    const error = await errorOf(
      readEventLog(
        generatedUnit('big.zstd', () => Array.from({ length: copies }, () => stored)),
        { zstdDecoder: 'binary', offThreadMinBytes: 0, limits: { maxDecompressedBytes: 2 * 2 ** 20 } },
      ),
    );
    expect(error.code).toBe('EVENTLOG_TOO_LARGE');
    // readEventLog returns only after the thread has ended, and the thread ends only after reaping.
    expect(zstdChildren()).toEqual([]);
  });
});
