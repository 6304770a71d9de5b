import { ValidationError } from '@setpoint/foundation/errors';
import type { ByteSource } from './byte-source.js';
import { type Codec, codecSniffBytes, detectCodec } from './detect-codec.js';
import { decodeGzipStream } from './gzip-stream.js';
import { decodeLz4BlockStream } from './lz4-block-stream.js';
import { decodeLzfStream } from './lzf-stream.js';
import { decodeSnappyJavaStream } from './snappy-java-stream.js';
import { decodeZstdStream, type ZstdDecoder } from './zstd-stream.js';

export interface DecodeOptions {
  zstdDecoder?: ZstdDecoder;
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
  switch (codec) {
    case 'plain':
      return { codec, chunks: stored() };
    case 'gzip':
      return { codec, chunks: decodeGzipStream(stored(), source.name) };
    case 'lz4':
      return { codec, chunks: decodeLz4BlockStream(stored(), source.name) };
    case 'snappy':
      return { codec, chunks: decodeSnappyJavaStream(stored(), source.name) };
    case 'lzf':
      return { codec, chunks: decodeLzfStream(stored(), source.name) };
    case 'zstd':
      return { codec, chunks: decodeZstdStream(stored(), source.name, options.zstdDecoder ?? 'auto') };
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
