import { once } from 'node:events';
import type { Transform, TransformOptions } from 'node:stream';
import * as zlib from 'node:zlib';
import { corruptStream, TruncatedStreamError } from '../eventlog-errors.js';
import { decodedChunkBytes } from './coalesce-chunks.js';
import { ZstdFrameSplitter } from './zstd-frames.js';

type ZstdDecompressFactory = (options?: TransformOptions & { chunkSize?: number }) => Transform;

/**
 * Node's built-in zstd decoder (`zlib.createZstdDecompress`, Node ≥ 22.15 and ≥ 23.8), or null on an
 * older Node. Its work runs on libuv's thread pool, so the calling thread only hands bytes over.
 */
export const builtInZstdDecompress: ZstdDecompressFactory | null = findBuiltIn();

function findBuiltIn(): ZstdDecompressFactory | null {
  if (!('createZstdDecompress' in zlib)) return null;
  const factory = zlib.createZstdDecompress;
  return typeof factory === 'function' ? (factory as ZstdDecompressFactory) : null;
}

/** Decoded chunks the thread pool may run ahead of the reader. */
const decodedAhead = 4;

/**
 * Decodes zstd with Node's built-in decoder, written one frame at a time (see zstd-frames.ts). A stream
 * that ends inside a frame (an in-progress log) is truncated; bytes that are not a zstd frame are corrupt.
 */
export async function* decodeWithZlib(
  input: AsyncIterable<Uint8Array>,
  source: string,
  create: ZstdDecompressFactory,
): AsyncGenerator<Uint8Array> {
  const decompressor = create({ chunkSize: decodedChunkBytes, readableHighWaterMark: decodedAhead });
  const splitter = new ZstdFrameSplitter();
  const stopped = new AbortController();
  let endedInsideFrame = false;
  const feed = async () => {
    for await (const chunk of input) {
      let pieces: ReturnType<ZstdFrameSplitter['split']>;
      try {
        pieces = splitter.split(chunk);
      } catch (error) {
        throw corruptStream(source, 'zstd', error instanceof Error ? error.message : String(error));
      }
      for (const piece of pieces) {
        if (stopped.signal.aborted) return;
        if (!decompressor.write(piece.bytes)) await once(decompressor, 'drain', { signal: stopped.signal });
      }
    }
    endedInsideFrame = !splitter.atFrameBoundary;
    decompressor.end();
  };
  const fed = feed().catch((error: unknown) => {
    if (!stopped.signal.aborted)
      decompressor.destroy(error instanceof Error ? error : new Error(String(error)));
  });
  try {
    for await (const chunk of decompressor as AsyncIterable<Uint8Array>) yield chunk;
    if (endedInsideFrame) throw new TruncatedStreamError(source, 'zstd');
  } catch (error) {
    throw revive(error, source);
  } finally {
    stopped.abort();
    decompressor.destroy();
    await fed;
  }
}

/** zlib's own errors name the stream's fault; any other (the input's, a limit) passes through as it is. */
function revive(error: unknown, source: string): unknown {
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  if (typeof code !== 'string' || !/^(Z_|ZSTD_)/.test(code)) return error;
  // zlib's word for input that stops inside a frame
  if (code === 'Z_BUF_ERROR') return new TruncatedStreamError(source, 'zstd');
  return corruptStream(source, 'zstd', (error as Error).message);
}
