import { corruptStream, TruncatedStreamError } from '../eventlog-errors.js';
import { ByteQueue } from './byte-queue.js';

const chunkUncompressed = 0;
const chunkCompressed = 1;

/**
 * Decodes the compress-lzf chunk format (what Spark writes for `.lzf`): chunks of "ZV" + type byte,
 * then a big-endian uint16 length (type 0, stored) or compressed + original lengths (type 1, LZF).
 */
export async function* decodeLzfStream(
  input: AsyncIterable<Uint8Array>,
  source: string,
): AsyncGenerator<Uint8Array> {
  const queue = new ByteQueue();
  for await (const chunk of input) {
    queue.append(chunk);
    while (queue.available >= 5) {
      if (queue.byteAt(0) !== 0x5a || queue.byteAt(1) !== 0x56)
        throw corruptStream(source, 'lzf', 'chunk header expected');
      const type = queue.byteAt(2);
      if (type === chunkUncompressed) {
        const length = queue.readUInt16BE(3);
        if (queue.available < 5 + length) break;
        queue.take(5);
        yield Buffer.from(queue.take(length));
      } else if (type === chunkCompressed) {
        if (queue.available < 7) break;
        const compressedLength = queue.readUInt16BE(3);
        const originalLength = queue.readUInt16BE(5);
        if (queue.available < 7 + compressedLength) break;
        queue.take(7);
        yield decompressLzfBlock(queue.take(compressedLength), originalLength, source);
      } else {
        throw corruptStream(source, 'lzf', `unknown chunk type ${type}`);
      }
    }
  }
  if (queue.available > 0) throw new TruncatedStreamError(source, 'lzf');
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
