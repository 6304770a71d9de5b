import { corruptStream } from '../eventlog-errors.js';
import { type BlockDecoders, jsBlockDecoders } from './block-decoders.js';
import { decodeFramedStream } from './framed-stream.js';

const blockMagic = Buffer.from('LZ4Block', 'latin1');
const headerBytes = 21;
const methodRaw = 0x10;
const methodLz4 = 0x20;

/**
 * Decodes lz4-java's LZ4BlockOutputStream format (what Spark writes for `.lz4`): blocks of
 * "LZ4Block" + token + compressedLen + originalLen + checksum (little-endian int32s) + payload.
 * An empty block ends one stream; Spark reads on after it, so concatenated streams decode too.
 */
export function decodeLz4BlockStream(
  input: AsyncIterable<Uint8Array>,
  source: string,
  decoders: BlockDecoders = jsBlockDecoders,
): AsyncGenerator<Uint8Array> {
  return decodeFramedStream(input, source, 'lz4', (queue) => {
    if (queue.available < headerBytes) return null;
    if (!queue.startsWith(blockMagic)) throw corruptStream(source, 'lz4', 'block header expected');
    const method = queue.byteAt(8) & 0xf0;
    const compressedLength = queue.readInt32LE(9);
    const originalLength = queue.readInt32LE(13);
    if (compressedLength < 0 || originalLength < 0 || (method !== methodRaw && method !== methodLz4)) {
      throw corruptStream(source, 'lz4', 'invalid block header');
    }
    if (queue.available < headerBytes + compressedLength) return null;
    queue.take(headerBytes);
    const payload = queue.take(compressedLength);
    if (originalLength === 0) return undefined;
    if (method === methodRaw) return Buffer.from(payload);
    return decoders.lz4(payload, originalLength, (problem) => corruptStream(source, 'lz4', problem));
  });
}
