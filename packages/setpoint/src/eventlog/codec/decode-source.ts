import { ValidationError } from '@setpoint/foundation/errors';
import type { ByteSource } from './byte-source.js';
import { coalesceChunks } from './coalesce-chunks.js';
import { type Codec, codecSniffBytes, detectCodec } from './detect-codec.js';
import { decodeGzipStream } from './gzip-stream.js';
import { decodeLz4BlockStream } from './lz4-block-stream.js';
import { decodeLzfStream } from './lzf-stream.js';
import { type BlockDecoderChoice, pickNativeBlockDecoders } from './native-block-decoders.js';
import { decodeOffThread, type ThreadCodec } from './off-thread.js';
import { decodeSnappyJavaStream } from './snappy-java-stream.js';
import { decodeZstdStream, findZstdBinary, resolveZstdDecoder, type ZstdDecoder } from './zstd-stream.js';

const defaultOffThreadMinBytes = 8 * 2 ** 20;
/**
 * zstd stores an event log about four times smaller than lz4 or snappy do (the bench's 218 MB log:
 * 6.5 MB against 21 and 26 MB), so its threshold is that much lower for the same decoded size.
 */
const zstdDensity = 4;

export type { BlockDecoderChoice };

export interface DecodeOptions {
  zstdDecoder?: ZstdDecoder;
  blockDecoder?: BlockDecoderChoice;
  /**
   * Stored size from which decoding (lz4, snappy, LZF, zstd; a quarter of it for zstd) runs in a
   * worker thread, overlapping with parsing; smaller files decode inline, where a thread would cost
   * more than it saves.
   */
  offThreadMinBytes?: number;
  /** Called with the number of stored (compressed) bytes as they are read; drives progress. */
  onStoredBytes?: (bytes: number) => void;
}

export interface DecodedSource {
  codec: Codec;
  chunks: AsyncIterable<Uint8Array>;
}

/** Sniffs the codec from the first bytes and returns the decompressed byte stream of one file. */
export async function decodeSource(source: ByteSource, options: DecodeOptions = {}): Promise<DecodedSource> {
  const head = await source.readHead(codecSniffBytes);
  if (head.length === 0) throw new ValidationError('EVENTLOG_EMPTY', `${source.name}: the file is empty`);
  const codec = detectCodec(head);
  const stored = () => countBytes(source.open(), options.onStoredBytes);
  const minBytes = options.offThreadMinBytes ?? defaultOffThreadMinBytes;
  const offThread = source.size >= minBytes;
  const zstdDecoder = options.zstdDecoder ?? 'auto';
  const decode = (threadCodec: ThreadCodec, inline: () => AsyncIterable<Uint8Array>) =>
    coalesceChunks(offThread ? decodeOffThread(threadCodec, stored(), source.name) : inline());
  // Native block decoders run in the thread too: inline, their decoding and joining of 32 KiB blocks
  // is parsing-thread time that the other core could have spent.
  const native = pickNativeBlockDecoders(options.blockDecoder ?? 'auto');
  const blocks = (threadCodec: 'lz4' | 'snappy', inline: () => AsyncIterable<Uint8Array>) =>
    native
      ? coalesceChunks(offThread ? decodeOffThread(threadCodec, stored(), source.name, 'native') : inline())
      : decode(threadCodec, inline);
  switch (codec) {
    case 'plain':
      return { codec, chunks: stored() };
    case 'gzip':
      return { codec, chunks: decodeGzipStream(stored(), source.name) };
    case 'lz4':
      return { codec, chunks: blocks('lz4', () => decodeLz4BlockStream(stored(), source.name, native)) };
    case 'snappy':
      return {
        codec,
        chunks: blocks('snappy', () => decodeSnappyJavaStream(stored(), source.name, native)),
      };
    case 'lzf':
      return { codec, chunks: decode('lzf', () => decodeLzfStream(stored(), source.name)) };
    case 'zstd': {
      const decoder = resolveZstdDecoder(zstdDecoder);
      // The built-in decoder already works on the thread pool: this thread only hands frames over.
      if (decoder === 'zlib')
        return { codec, chunks: coalesceChunks(decodeZstdStream(stored(), source.name, decoder)) };
      // Read by this thread, the child's pipe hands over 64 KiB per event-loop turn and stalls the
      // child whenever parsing runs; a thread keeps the pipe drained and passes on 1 MiB chunks.
      const binary = decoder === 'binary' && findZstdBinary() !== null;
      if (source.size >= minBytes / zstdDensity && (binary || decoder === 'fzstd')) {
        const threaded = decodeOffThread('zstd', stored(), source.name, binary ? 'native' : 'js');
        return { codec, chunks: coalesceChunks(threaded) };
      }
      return { codec, chunks: coalesceChunks(decodeZstdStream(stored(), source.name, decoder)) };
    }
    case 'lz4-frame':
      throw new ValidationError(
        'EVENTLOG_UNSUPPORTED_CODEC',
        `${source.name}: LZ4 frame format is not what Spark writes; decompress it with \`lz4 -d\` first`,
      );
    case 'zip':
      throw new ValidationError('EVENTLOG_NESTED_ZIP', `${source.name}: a zip archive inside a zip archive`);
    case 'unknown':
      throw new ValidationError(
        'EVENTLOG_NOT_RECOGNISED',
        `${source.name}: not a Spark event log (starts with bytes ${hex(head)}; expected JSON lines or a Spark codec)`,
      );
  }
}

async function* countBytes(
  chunks: AsyncIterable<Uint8Array>,
  onBytes: ((bytes: number) => void) | undefined,
): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    onBytes?.(chunk.length);
    yield chunk;
  }
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes.subarray(0, 8), (byte) => byte.toString(16).padStart(2, '0')).join(' ');
}
