import { corruptStream } from '../eventlog-errors.js';
import { decodeFramedStream } from './framed-stream.js';

const chunkUncompressed = 0;
const chunkCompressed = 1;

/**
 * Decodes the compress-lzf chunk format (what Spark writes for `.lzf`): chunks of "ZV" + type byte,
 * then a big-endian uint16 length (type 0, stored) or compressed + original lengths (type 1, LZF).
 */
export function decodeLzfStream(
  input: AsyncIterable<Uint8Array>,
  source: string,
): AsyncGenerator<Uint8Array> {
  return decodeFramedStream(input, source, 'lzf', (queue) => {
    if (queue.available < 5) return null;
    if (queue.byteAt(0) !== 0x5a || queue.byteAt(1) !== 0x56)
      throw corruptStream(source, 'lzf', 'chunk header expected');
    const type = queue.byteAt(2);
    if (type === chunkUncompressed) {
      const length = queue.readUInt16BE(3);
      if (queue.available < 5 + length) return null;
      queue.take(5);
      return Buffer.from(queue.take(length));
    }
    if (type !== chunkCompressed) throw corruptStream(source, 'lzf', `unknown chunk type ${type}`);
    if (queue.available < 7) return null;
    const compressedLength = queue.readUInt16BE(3);
    const originalLength = queue.readUInt16BE(5);
    if (queue.available < 7 + compressedLength) return null;
    queue.take(7);
    return decompressLzfBlock(queue.take(compressedLength), originalLength, source);
  });
}

/** LZF: a control byte < 32 starts a literal run of ctrl+1 bytes, otherwise a back-reference. */
export function decompressLzfBlock(input: Uint8Array, originalLength: number, source: string): Buffer {
  const output = Buffer.allocUnsafe(originalLength);
  let inputIndex = 0;
  let outputIndex = 0;
  while (inputIndex < input.length) {
    const control = input[inputIndex++]!;
    if (control < 32) {
      const runEnd = inputIndex + control + 1;
      if (runEnd > input.length || outputIndex + control + 1 > originalLength) {
        throw corruptStream(source, 'lzf', 'literal run overflows the block');
      }
      while (inputIndex < runEnd) output[outputIndex++] = input[inputIndex++]!;
      continue;
    }
    let length = control >> 5;
    if (length === 7) length += input[inputIndex++] ?? 0;
    let reference = outputIndex - ((control & 0x1f) << 8) - (input[inputIndex++] ?? 0) - 1;
    length += 2;
    if (reference < 0 || outputIndex + length > originalLength) {
      throw corruptStream(source, 'lzf', 'back-reference outside the block');
    }
    while (length-- > 0) output[outputIndex++] = output[reference++]!;
  }
  if (outputIndex !== originalLength) throw corruptStream(source, 'lzf', 'block length mismatch');
  return output;
}
